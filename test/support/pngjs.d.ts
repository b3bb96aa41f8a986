// pngjs ships no types and @types/pngjs is not installed: the one call the tests make.
declare module 'pngjs' {
  export const PNG: { sync: { read(buffer: Buffer): { width: number; height: number; data: Buffer } } };
}
