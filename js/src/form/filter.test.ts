// Filtering long option lists (filter.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { filterOptions } from "./filter";

test("filterOptions is case-insensitive and keeps order", () => {
  assert.deepEqual(filterOptions(["Price", "qty", "price_eur"], "PRI"), ["Price", "price_eur"]);
  assert.deepEqual(filterOptions(["a", "b"], "  "), ["a", "b"]);
});
