'use strict';

// Invoice generator for a small subscription business.
// Builds invoices from plans, usage records and coupons, then renders them.

const CURRENCY = 'EUR';
const VAT_RATES = { DE: 0.19, FR: 0.2, NL: 0.21, AT: 0.2 };

const PLANS = {
  starter: { name: 'Starter', monthly: 9, includedSeats: 1, seatPrice: 5 },
  team: { name: 'Team', monthly: 49, includedSeats: 5, seatPrice: 8 },
  business: { name: 'Business', monthly: 199, includedSeats: 20, seatPrice: 7 },
};

const COUPONS = [
  { code: 'WELCOME10', kind: 'percent', value: 10, plans: ['starter', 'team'] },
  { code: 'FLAT25', kind: 'fixed', value: 25, plans: ['business'] },
  { code: 'LOYAL', kind: 'percent', value: 15, plans: ['team', 'business'] },
];

const CUSTOMERS = [
  { id: 'c-001', name: 'Acme GmbH', country: 'DE', plan: 'team', seats: 7, coupon: 'LOYAL' },
  { id: 'c-002', name: 'Globex SARL', country: 'FR', plan: 'starter', seats: 1, coupon: null },
  { id: 'c-003', name: 'Initech BV', country: 'NL', plan: 'business', seats: 26, coupon: 'FLAT25' },
  { id: 'c-004', name: 'Hooli AG', country: 'AT', plan: 'team', seats: 4, coupon: 'WELCOME10' },
  { id: 'c-005', name: 'Umbrella Ltd', country: 'IE', plan: 'business', seats: 31, coupon: null },
];

// Shown in the billing-run header, one per customer.
const RATE_LABELS = CUSTOMERS.map((c) => `${c.id} ${c.country}: VAT ${VAT_RATES[c.country].toFixed(2)}`);

const USAGE = [
  { customer: 'c-001', metric: 'api_calls', amount: 120000 },
  { customer: 'c-001', metric: 'storage_gb', amount: 40 },
  { customer: 'c-003', metric: 'api_calls', amount: 2400000 },
  { customer: 'c-003', metric: 'storage_gb', amount: 310 },
  { customer: 'c-004', metric: 'storage_gb', amount: 3 },
  { customer: 'c-005', metric: 'api_calls', amount: 900000 },
];

const METERED = {
  api_calls: { unit: 100000, price: 2.5, free: 100000 },
  storage_gb: { unit: 10, price: 1.2, free: 20 },
};

function round2(x) {
  return Math.round(x * 100) / 100;
}

function money(x) {
  return `${x.toFixed(2)} ${CURRENCY}`;
}

function vatLabel(country) {
  return `${country} ${(VAT_RATES[country] * 100).toFixed(0)}%`;
}

function percent(rate) {
  return `${(rate * 100).toFixed(1)}%`;
}

class LineItem {
  constructor(description, quantity, unitPrice) {
    this.description = description;
    this.quantity = quantity;
    this.unitPrice = unitPrice;
  }

  get total() {
    return round2(this.quantity * this.unitPrice);
  }
}

class Invoice {
  constructor(customer, period) {
    this.customer = customer;
    this.period = period;
    this.items = [];
    this.discount = 0;
  }

  add(item) {
    if (item.quantity > 0) {
      this.items.push(item);
    }
    return this;
  }

  get subtotal() {
    return round2(this.items.reduce((sum, item) => sum + item.total, 0));
  }

  get net() {
    return round2(Math.max(0, this.subtotal - this.discount));
  }

  get vat() {
    return round2(this.net * VAT_RATES[this.customer.country]);
  }

  get gross() {
    return round2(this.net + this.vat);
  }
}

function findCoupon(code) {
  if (!code) {
    return undefined;
  }
  return COUPONS.find((c) => c.code === code);
}

function couponDiscount(coupon, planKey, subtotal) {
  if (!coupon || !coupon.plans.includes(planKey)) {
    return 0;
  }
  if (coupon.kind === 'percent') {
    return round2((subtotal * coupon.value) / 100);
  }
  return Math.min(coupon.value, subtotal);
}

function meteredItems(customerId) {
  const items = [];
  for (const record of USAGE.filter((u) => u.customer === customerId)) {
    const meter = METERED[record.metric];
    const billable = Math.max(0, record.amount - meter.free);
    const units = Math.ceil(billable / meter.unit);
    items.push(new LineItem(`${record.metric} (${units} x ${meter.unit})`, units, meter.price));
  }
  return items;
}

function buildInvoice(customer, period) {
  const plan = PLANS[customer.plan];
  const invoice = new Invoice(customer, period);
  invoice.add(new LineItem(`${plan.name} plan`, 1, plan.monthly));
  const extraSeats = Math.max(0, customer.seats - plan.includedSeats);
  invoice.add(new LineItem('Additional seats', extraSeats, plan.seatPrice));
  for (const item of meteredItems(customer.id)) {
    invoice.add(item);
  }
  const coupon = findCoupon(customer.coupon);
  invoice.discount = couponDiscount(coupon, customer.plan, invoice.subtotal);
  return invoice;
}

function pad(text, width) {
  const s = String(text);
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}

function renderInvoice(invoice) {
  const lines = [];
  lines.push(`Invoice for ${invoice.customer.name} (${invoice.customer.id}), ${invoice.period}`);
  for (const item of invoice.items) {
    lines.push(`  ${pad(item.description, 34)} ${pad(item.quantity, 6)} ${money(item.total)}`);
  }
  lines.push(`  ${pad('Subtotal', 41)} ${money(invoice.subtotal)}`);
  if (invoice.discount > 0) {
    lines.push(`  ${pad('Discount', 41)} -${money(invoice.discount)}`);
  }
  lines.push(`  ${pad('VAT', 41)} ${money(invoice.vat)}`);
  lines.push(`  ${pad('Total', 41)} ${money(invoice.gross)}`);
  return lines.join('\n');
}

function summarize(invoices) {
  const byCountry = new Map();
  for (const invoice of invoices) {
    const key = invoice.customer.country;
    const entry = byCountry.get(key) || { count: 0, net: 0, vat: 0 };
    entry.count += 1;
    entry.net = round2(entry.net + invoice.net);
    entry.vat = round2(entry.vat + invoice.vat);
    byCountry.set(key, entry);
  }
  return byCountry;
}

function renderSummary(summary) {
  const rows = [];
  for (const [country, entry] of [...summary.entries()].sort()) {
    const rate = VAT_RATES[country];
    rows.push(`${country}: ${entry.count} invoices, net ${money(entry.net)}, VAT ${percent(rate)}`);
  }
  return rows.join('\n');
}

function main() {
  const period = '2024-05';
  const countries = [...new Set(CUSTOMERS.map((c) => c.country))];
  console.log(`Billing run ${period}: ${countries.map(vatLabel).join(', ')}`);
  const rates = countries.map((c) => VAT_RATES[c]);
  console.log(`Highest VAT rate: ${percent(Math.max(...rates))}`);
  console.log(RATE_LABELS.join('\n'));
  const invoices = CUSTOMERS.map((customer) => buildInvoice(customer, period));
  for (const invoice of invoices) {
    if (invoice.customer.country in VAT_RATES) {
      console.log(renderInvoice(invoice));
      console.log('');
    }
  }
  console.log(renderSummary(summarize(invoices)));
}

main();
