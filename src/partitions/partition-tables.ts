/**
 * The tables partitioned by day of their ULID key (sql/0119_day_partitions.sql), and what
 * retention needs to know of each (docs/data-lifecycle.md, "Day partitions" and "Retention").
 */
export interface PartitionedTable {
  table: 'clicks' | 'impressions' | 'events' | 'click_beacons' | 'ara_reports';
  /** The ULID column the table is partitioned by: its first ten characters name the day. */
  key: string;
  /** Copied into DuckDB (src/analytics/mirror/mirror-tables.ts): its dropped days are deleted there too. */
  mirrored: boolean;
}

export const PARTITIONED_TABLES: readonly PartitionedTable[] = [
  { table: 'clicks', key: 'id', mirrored: true },
  { table: 'impressions', key: 'id', mirrored: true },
  { table: 'events', key: 'id', mirrored: true },
  { table: 'click_beacons', key: 'click_id', mirrored: false },
  { table: 'ara_reports', key: 'id', mirrored: false },
];

export type PartitionedTableName = PartitionedTable['table'];
