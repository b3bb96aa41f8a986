/**
 * The two timers every JavaScript platform the SDKs run on has (browsers, Hermes, JSC, Bun);
 * declared here because the core compiles without the DOM's or Node's declarations.
 */
declare function setTimeout(run: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;
