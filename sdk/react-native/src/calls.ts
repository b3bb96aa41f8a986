/** The subscription and ad revenue calls as the app makes them, and the endpoint bodies they become (docs/sdk.md). */

export interface Subscription {
  store: 'apple' | 'google';
  productId: string;
  /** iOS: the original transaction id. */
  originalTransactionId?: string | null;
  /** Android: the purchase token. */
  purchaseToken?: string | null;
  isTrial?: boolean;
  /** The price times 1,000,000. */
  priceMicros?: number;
  currency?: string | null;
  expiresAt?: string | null;
  occurredAt?: string | null;
}

export interface AdRevenue {
  network: string;
  /** In currency units (micros divided by 1,000,000). */
  revenue: number;
  currency?: string;
  adUnit?: string | null;
  format?: string | null;
  placement?: string | null;
  precision?: string | null;
  source?: string | null;
}

/** The spec's limit of one ad revenue call. */
export const AD_REVENUE_MAX = 100;

export function subscriptionBody(subscription: Subscription): Record<string, unknown> {
  const s = subscription;
  if (!s || (s.store !== 'apple' && s.store !== 'google')) throw new TypeError("svc: store must be 'apple' or 'google'");
  if (typeof s.productId !== 'string' || s.productId === '') throw new TypeError('svc: productId is required');
  if (s.store === 'apple' ? !s.originalTransactionId : !s.purchaseToken) {
    throw new TypeError(s.store === 'apple' ? 'svc: an apple subscription needs originalTransactionId' : 'svc: a google subscription needs purchaseToken');
  }
  if (s.priceMicros !== undefined && (!Number.isSafeInteger(s.priceMicros) || s.priceMicros < 0)) throw new TypeError('svc: priceMicros must be a whole number >= 0');
  const body: Record<string, unknown> = {
    store: s.store,
    product_id: s.productId,
    original_transaction_id: s.originalTransactionId ?? null,
    purchase_token: s.purchaseToken ?? null,
    currency: s.currency ?? null,
    expires_at: s.expiresAt ?? null,
    occurred_at: s.occurredAt ?? null,
  };
  if (s.isTrial !== undefined) body.is_trial = s.isTrial;
  if (s.priceMicros !== undefined) body.price_micros = s.priceMicros;
  return body;
}

export function adRevenueEvents(revenue: AdRevenue | readonly AdRevenue[]): Record<string, unknown>[] {
  const list = Array.isArray(revenue) ? (revenue as readonly AdRevenue[]) : [revenue as AdRevenue];
  if (list.length < 1 || list.length > AD_REVENUE_MAX) throw new TypeError(`svc: 1 to ${AD_REVENUE_MAX} ad revenue events per call`);
  return list.map((r) => {
    if (!r || typeof r.network !== 'string' || r.network === '') throw new TypeError('svc: network is required');
    if (typeof r.revenue !== 'number' || !Number.isFinite(r.revenue) || r.revenue < 0) throw new TypeError('svc: revenue must be a finite number >= 0');
    const event: Record<string, unknown> = {
      network: r.network,
      revenue: r.revenue,
      ad_unit: r.adUnit ?? null,
      format: r.format ?? null,
      placement: r.placement ?? null,
      precision: r.precision ?? null,
      source: r.source ?? null,
    };
    if (r.currency !== undefined) event.currency = r.currency;
    return event;
  });
}
