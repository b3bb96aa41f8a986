/** The messages between ip-data.thread.ts and ip-data.worker.ts. */
export interface IpDataRequest {
  asnDir?: string;
  /** Where the ASN table's binary copy and the city files' copies go: DATA_DIR/ipintel. */
  cacheDir: string;
  cityDatabases?: readonly string[];
}

export type IpDataReply = { kind: 'done'; asnRows: number } | { kind: 'failed'; message: string };
