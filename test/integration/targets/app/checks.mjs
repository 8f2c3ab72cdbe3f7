// A custom check through umpire's public check API (src/checks/custom-api.ts): the item count the
// app reports over HTTP must equal options.count.
export const itemCount = {
  name: "item count",
  async judge(ctx, options) {
    const res = await fetch(`${ctx.target.baseUrl}/api/items`, {
      headers: { authorization: `Bearer ${ctx.env.STOCK_TOKEN}` },
    });
    const items = await res.json();
    return items.length === options.count
      ? { pass: true, reason: `the app holds ${items.length} item(s)`, evidence: { items } }
      : {
          pass: false,
          reason: `the app holds ${items.length} item(s), expected ${options.count}`,
          evidence: { items },
        };
  },
};
