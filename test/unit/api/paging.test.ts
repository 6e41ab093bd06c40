// Pages and their next_page_params (src/api/paging.ts).
import t from 'tap';
import { makePage, pageSize } from '../../../src/api/paging.js';

t.test('paging', async (t) => {
  t.equal(pageSize({}), 50);
  t.equal(pageSize({ items_count: 7n }), 7);
  const rows = [1, 2, 3, 4];
  const p = makePage(rows, 3, (rs) => rs.map((r) => r * 10), (r) => ({ n: r }), { echo: { filter: 'x' } });
  t.same(p, { items: [10, 20, 30], next_page_params: { filter: 'x', items_count: 3, n: 3 } }, 'cursor of the last item, keys sorted');
  t.same(makePage([1, 2], 3, (rs) => rs, (r) => ({ n: r })), { items: [1, 2], next_page_params: null }, 'last page: null');
  t.same(makePage([1, 2, 3], 2, (rs) => rs, (r) => ({ n: r }), { itemsCount: false }).next_page_params, { n: 2 }, 'without items_count');
});
