// A real Envoy admin config_dump (istioctl's test data, in the shared mesh reference) imports with sensible edges.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importRead, readMeshFile } from '../../src/mesh/import.js';

const DUMP = '../shared/mesh-reference/configs/envoy-istioctl-describe-http-config-dump.json';

describe('the reference config_dump (istio istioctl/pkg/describe/testdata/describe/http_config.json)', () => {
  it('is there (a missing reference fails, it is not skipped)', () => {
    expect(existsSync(DUMP), `${DUMP} from the repository root`).toBe(true);
  });

  it("imports: the RDS route config's retries to productpage, and the productpage v1 cluster's balancer", async () => {
    const read = await readMeshFile(DUMP);
    expect(read.format).toBe('envoy');
    const route = read.edges.find((e) => e.retry !== null);
    expect(route).toMatchObject({
      from: null,
      to: 'productpage',
      source: `${DUMP}: document 1.configs[0].dynamic_route_configs[0].route_config.virtual_hosts[0].routes[0]`,
      // num_retries 2; timeout 0s is no deadline; retriable-status-codes with 503.
      retry: { maxAttempts: 3, deadline: false },
    });
    expect(route?.retry?.retryOn).toContain(503);
    // The v1 subset cluster is productpage too, but no route leads to it: reported, not a second call.
    expect(read.edges).toHaveLength(1);
    expect(read.warnings).toContainEqual(
      expect.objectContaining({
        field: 'calls',
        message: expect.stringMatching(/^cluster outbound\|9080\|v1\|productpage\S* is productpage too/),
      }),
    );
    expect(read.warnings.map((w) => w.message)).toContain(
      "document 1: the dump has no BootstrapConfigDump (node.cluster), so its routes are read as any caller's",
    );
    const out = importRead(read, DUMP);
    expect(out.yaml).toContain('mesh-client -> productpage:');
    expect(out.yaml).toContain('maxAttempts: 3');
  });
});
