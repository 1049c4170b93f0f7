// The tables src/mesh/envoy/normalize.ts walks by agree with Envoy's protos: field names, lists, nested messages.
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { jsonName, type Message, WALKED } from '../../src/mesh/envoy/normalize.js';
import { envoyProtos } from './envoy-protos.js';

const protos = envoyProtos();
const HAND_WRITTEN = new Set(Object.values(WALKED));

/** Every disagreement between a walked table and the proto message it stands for, nested ones included. */
function compare(table: Message, type: protobuf.Type, path: string, out: string[], seen: Set<Message>): void {
  if (seen.has(table)) return;
  seen.add(table);
  type.resolveAll();
  for (const [name, field] of table.fields) {
    const proto = type.fields[name];
    if (proto === undefined) {
      out.push(`${path}.${name}: no such field in ${type.fullName}`);
      continue;
    }
    if (jsonName(name) !== (proto.options?.json_name ?? jsonName(proto.name)))
      out.push(`${path}.${name}: json_name differs`);
    // A field only named (not walked) makes no claim about being a list.
    const walked = field.repeated || field.of !== undefined;
    if (walked && field.repeated !== proto.repeated)
      out.push(`${path}.${name}: repeated ${proto.repeated} in the proto`);
    if (field.of === 'any' && proto.type !== 'google.protobuf.Any') out.push(`${path}.${name}: not an Any`);
    // Messages derived from the zod schemas are checked against the protos by envoy-protos.test.ts.
    if (typeof field.of === 'object' && HAND_WRITTEN.has(field.of)) {
      const nested = proto.resolvedType;
      if (nested === null || !(nested as protobuf.Type).fields) out.push(`${path}.${name}: not a message`);
      else compare(field.of, nested as protobuf.Type, `${path}.${name}`, out, seen);
    }
  }
}

describe("normalize.ts's walked messages agree with Envoy's protos", () => {
  it.each(Object.keys(WALKED))('%s: every field named, listed and nested as in the proto', (name) => {
    const type = protos.type(name);
    expect(type, name).toBeDefined();
    const findings: string[] = [];
    compare(WALKED[name] as Message, type as protobuf.Type, name.split('.').at(-1) as string, findings, new Set());
    expect(findings).toEqual([]);
  });

  it('the comparison bites: a list written as a single field, and a misnamed field, are found', () => {
    const type = protos.type('envoy.config.listener.v3.Listener') as protobuf.Type;
    const wrong: Message = {
      fields: new Map([
        ['filter_chains', { repeated: false, of: { fields: new Map(), byJson: new Map() } }],
        ['filter_chain', { repeated: true }],
      ]),
      byJson: new Map(),
    };
    const findings: string[] = [];
    compare(wrong, type, 'Listener', findings, new Set());
    expect(findings).toEqual([
      'Listener.filter_chains: repeated true in the proto',
      'Listener.filter_chain: no such field in .envoy.config.listener.v3.Listener',
    ]);
  });
});
