import { monotonicFactory } from 'ulid';

/**
 * ULIDs: time-ordered, 26 characters, unique across nodes (80 random bits per millisecond).
 * Monotonic within this process, so ids minted in the same millisecond still sort in order.
 */
export const newId: () => string = monotonicFactory();

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
