-- Day partitions (docs/operations.md, "Day partitions").
--
-- clicks, impressions, events, click_beacons and ara_reports are written once per visit and only
-- grow. Each becomes a table partitioned by RANGE of its id, a ULID whose first ten characters are
-- its millisecond time: a day's partition holds the ids from that day's first millisecond to the
-- next day's, so a lookup by id names one partition and probes one index, and retention drops
-- whole days. The existing table is attached as the first partition, <table>_legacy, for every id
-- before tomorrow (UTC): no row is copied, and the lock is held for one scan that checks the
-- bound. <table>_default takes any row no partition covers yet (an id far ahead, an id that is
-- not a ULID). The node makes the day partitions ahead itself (src/partitions).

-- The first ten characters of a ULID minted at `at`: its millisecond time in Crockford base32.
CREATE FUNCTION svc_ulid_prefix(at timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  ms bigint := floor(extract(epoch FROM at) * 1000);
  digits text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  prefix text := '';
BEGIN
  FOR i IN 1..10 LOOP
    prefix := substr(digits, (ms % 32)::integer + 1, 1) || prefix;
    ms := ms / 32;
  END LOOP;
  RETURN prefix;
END
$$;

-- Turns `tbl` into a table partitioned by range of `key_column`, keeping its columns, defaults,
-- checks, primary key, indexes, triggers and sequences; the old table becomes <tbl>_legacy.
CREATE FUNCTION svc_partition_by_id(tbl text, key_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  legacy text := tbl || '_legacy';
  bound text := svc_ulid_prefix(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day');
  index_defs text[];
  trigger_defs text[];
  pkey text;
  def text;
  rec record;
BEGIN
  -- No write may slip in between the copy of the definitions and the attach.
  EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', tbl);
  SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO index_defs
    FROM pg_index i
   WHERE i.indrelid = tbl::regclass
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid);
  SELECT pg_get_constraintdef(c.oid) INTO pkey FROM pg_constraint c WHERE c.conrelid = tbl::regclass AND c.contype = 'p';
  SELECT array_agg(pg_get_triggerdef(t.oid)) INTO trigger_defs
    FROM pg_trigger t WHERE t.tgrelid = tbl::regclass AND NOT t.tgisinternal;

  EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, legacy);
  FOR rec IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = legacy::regclass LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', rec.relname, left(rec.relname, 50) || '_legacy');
  END LOOP;
  FOR rec IN SELECT t.tgname FROM pg_trigger t WHERE t.tgrelid = legacy::regclass AND NOT t.tgisinternal LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', rec.tgname, legacy);
  END LOOP;

  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED) PARTITION BY RANGE (%I)',
    tbl, legacy, key_column);
  EXECUTE format('ALTER TABLE %I ADD %s', tbl, pkey);
  FOREACH def IN ARRAY coalesce(index_defs, '{}') LOOP EXECUTE def; END LOOP;
  FOREACH def IN ARRAY coalesce(trigger_defs, '{}') LOOP EXECUTE def; END LOOP;
  -- A sequence owned by the old table would go with it when retention drops it.
  FOR rec IN SELECT a.attname, pg_get_serial_sequence(legacy, a.attname) AS seq
               FROM pg_attribute a WHERE a.attrelid = legacy::regclass AND a.attnum > 0 AND NOT a.attisdropped LOOP
    IF rec.seq IS NOT NULL THEN
      EXECUTE format('ALTER SEQUENCE %s OWNED BY %I.%I', rec.seq, tbl, rec.attname);
    END IF;
  END LOOP;

  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
  -- Rows past the bound (a clock far ahead, an id that is no ULID) move to the default partition.
  EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE %I >= $1', tbl, legacy, key_column) USING bound;
  EXECUTE format('DELETE FROM %I WHERE %I >= $1', legacy, key_column) USING bound;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', tbl, legacy, bound);
END
$$;

SELECT svc_partition_by_id('clicks', 'id');
SELECT svc_partition_by_id('impressions', 'id');
SELECT svc_partition_by_id('events', 'id');
SELECT svc_partition_by_id('click_beacons', 'click_id');
SELECT svc_partition_by_id('ara_reports', 'id');
DROP FUNCTION svc_partition_by_id(text, text);
