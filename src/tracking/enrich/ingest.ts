import { openIpIntel, type IpIntel, type IpIntelOptions } from '../../ipintel/ip-intel';
import { createRepeatWindow } from '../risk/repeat-window';
import type { IpHasher } from '../../shared/crypto/ip-hash';
import type { ClickRecord } from '../click.model';
import { createCrawlerVerifier, loadShippedRanges, type EngineRanges } from '../../ipintel/crawlers/crawlers';
import { openGeoDatabase } from '../../ipintel/geo/geo-reader';
import { createAddressCache } from './address-facts';
import { beginWork, STEPS, type IngestionStep, type StepContext } from './steps';

export interface Ingestion {
  /** Returns an enriched copy of the click, labelled with a drop reason when it must not attribute. */
  enrich(click: ClickRecord): ClickRecord;
}

export interface IngestionOptions {
  /** Another MMDB country or city database (GeoLite2 works); default: the shipped CC0/CC BY file. */
  geoDatabase?: string;
  /** Crawler ranges to verify against; default: the snapshots under bot-ranges/. */
  ranges?: EngineRanges;
  steps?: readonly IngestionStep[];
  /** The IP type source for risk scoring and the region source; default openIpIntel(ipIntelOptions). */
  ipIntel?: Pick<IpIntel, 'ipType' | 'place'>;
  /** Where the shipped IP data is cached (ipIntelOptionsFor(config)); the same on every thread. */
  ipIntelOptions?: IpIntelOptions;
}

let shippedRanges: EngineRanges | undefined;

/**
 * Builds the ingestion pipeline the click batcher runs right before each insert. The geo
 * database and crawler ranges are loaded here, synchronously and once. The IP data of risk
 * scoring and regions loads on the first click, unless `ipIntel` comes loaded (the writer thread
 * loads it as it starts, click-writer.worker.ts); enrich() then does no I/O.
 */
export function createIngestion(services: { ipHasher: IpHasher }, options: IngestionOptions = {}): Ingestion {
  const context: StepContext = {
    geo: openGeoDatabase(options.geoDatabase),
    crawlers: createCrawlerVerifier(options.ranges ?? (shippedRanges ??= loadShippedRanges())),
    ipHasher: services.ipHasher,
    ipIntel: options.ipIntel ?? openIpIntel(options.ipIntelOptions),
    repeats: createRepeatWindow(),
  };
  const steps = options.steps ?? STEPS;
  const addresses = createAddressCache();
  const reported = new Set<string>();
  return {
    enrich(click) {
      const work = beginWork(click, addresses);
      for (const step of steps) {
        try {
          step.run(work, context);
        } catch (error) {
          // A click already answered must still be stored: a failing step leaves its fields
          // as they were, and is reported once per step rather than once per click.
          if (!reported.has(step.name)) {
            reported.add(step.name);
            console.error(`click ingestion step "${step.name}" failed`, error);
          }
        }
      }
      return work.click;
    },
  };
}
