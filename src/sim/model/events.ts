// The simulated system's event types: one switch in World.handle(), no closure per event.

// Each type has its own FIFO lane in the engine.
export const EV_ARRIVAL = 0;
export const EV_GIVE_UP = 1;
export const EV_MESSAGE = 2;
export const EV_WORK_DONE = 3;
export const EV_RESPONSE = 4;
export const EV_TRY_TIMEOUT = 5;
export const EV_RETRY = 6;
export const EV_FAULT = 7;
export const EV_SWEEP = 8;
