"""Synthetic analytics workload: SQL texts with a planner-cost class.

The cost class is derived from the query's shape (joins, subqueries, missing filters,
leading-wildcard LIKE, sorts without LIMIT, ...), the way a workload manager would bucket
queries by their estimated cost before admitting them.
"""
import random

TABLES = ["orders", "order_items", "customers", "products", "suppliers", "shipments",
          "invoices", "payments", "warehouses", "inventory", "returns", "regions",
          "web_events", "sessions", "campaigns", "ad_clicks", "employees", "stores"]
COLUMNS = ["id", "customer_id", "order_id", "product_id", "supplier_id", "created_at",
           "updated_at", "amount", "quantity", "unit_price", "discount", "status", "country",
           "city", "email", "name", "category", "sku", "region_id", "store_id", "channel",
           "campaign_id", "session_id", "user_agent", "revenue", "cost", "margin", "tax"]
WORDS = ["pending", "shipped", "O'Brien", "north", "EU", "promo", "gold", "retail", "web",
         "mobile", "it's late", "express", "backorder", "BLACK FRIDAY", "returned"]
COST_CLASSES = ("cheap", "moderate", "expensive", "very_expensive")


class QueryGen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def col(self, alias=None):
        c = self.r.choice(COLUMNS)
        if self.r.random() < 0.1:
            c = '"' + c.replace("_", " ").title() + '"'
        return f"{alias}.{c}" if alias else c

    def literal(self):
        k = self.r.random()
        if k < 0.35:
            return "'" + self.r.choice(WORDS).replace("'", "''") + "'"
        if k < 0.65:
            return str(self.r.randint(0, 100000))
        if k < 0.85:
            return f"{self.r.uniform(0, 5000):.2f}"
        return f"{self.r.randint(1, 9)}.{self.r.randint(0, 99)}e{self.r.randint(-3, 6)}"

    def condition(self, alias, score):
        k = self.r.random()
        c = self.col(alias)
        if k < 0.3:
            return f"{c} = {self.literal()}"
        if k < 0.5:
            return f"{c} BETWEEN {self.r.randint(0, 500)} AND {self.r.randint(500, 9000)}"
        if k < 0.65:
            lead = self.r.random() < 0.5
            if lead:
                score[0] += 2
            return f"{c} LIKE '{'%' if lead else ''}{self.r.choice(WORDS)[:4].replace(chr(39), '')}%'"
        if k < 0.8:
            vals = ", ".join(self.literal() for _ in range(self.r.randint(2, 6)))
            return f"{c} IN ({vals})"
        if k < 0.9:
            return f"{c} IS NOT NULL"
        score[0] += 3
        sub = self.r.choice(TABLES)
        return (f"{c} IN (SELECT {self.col()} FROM {sub} WHERE {self.col()} >= {self.literal()}"
                f" /* correlated? no */)")

    def comment(self):
        if self.r.random() < 0.5:
            return f"-- {self.r.choice(['nightly', 'adhoc', 'dashboard', 'etl'])} job {self.r.randint(1, 999)}\n"
        return f"/* owner: {self.r.choice(['bi', 'finance', 'growth'])}; ticket #{self.r.randint(100, 9999)} */ "

    def select(self, score):
        n_tables = 1 + min(self.r.getrandbits(3) % 6, 5)
        tables = self.r.sample(TABLES, n_tables)
        aliases = [f"t{i}" for i in range(n_tables)]
        cols = []
        for _ in range(self.r.randint(6, 20)):
            a = self.r.choice(aliases)
            if self.r.random() < 0.3:
                fn = self.r.choice(["SUM", "AVG", "COUNT", "MAX", "MIN"])
                cols.append(f"{fn}({self.col(a)}) AS {self.r.choice(COLUMNS)}_{fn.lower()}")
            elif self.r.random() < 0.15:
                cols.append(f"CASE WHEN {self.col(a)} > {self.literal()} THEN 'hi' ELSE 'lo' END")
            else:
                cols.append(self.col(a))
        sql = self.comment() if self.r.random() < 0.6 else ""
        sql += "SELECT " + ("DISTINCT " if self.r.random() < 0.15 else "") + ",\n       ".join(cols)
        sql += f"\nFROM {tables[0]} t0"
        for i in range(1, n_tables):
            kind = self.r.choice(["JOIN", "LEFT JOIN", "INNER JOIN", "LEFT OUTER JOIN"])
            sql += f"\n{kind} {tables[i]} {aliases[i]} ON {aliases[i]}.{self.r.choice(COLUMNS)} = t{self.r.randint(0, i - 1)}.{self.r.choice(COLUMNS)}"
            score[0] += 2
        n_cond = self.r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8])
        if n_cond == 0:
            score[0] += 2 * n_tables
        else:
            conds = [self.condition(self.r.choice(aliases), score) for _ in range(n_cond)]
            sql += "\nWHERE " + "\n  AND ".join(conds)
        if self.r.random() < 0.4:
            sql += "\nGROUP BY " + ", ".join(self.col(self.r.choice(aliases)) for _ in range(self.r.randint(1, 3)))
            score[0] += 1
            if self.r.random() < 0.4:
                sql += f"\nHAVING COUNT(*) > {self.r.randint(1, 50)}"
        limit = self.r.random() < 0.5
        if self.r.random() < 0.5:
            sql += "\nORDER BY " + self.col(self.r.choice(aliases)) + self.r.choice([" ASC", " DESC", ""])
            if not limit:
                score[0] += 2
        if limit:
            sql += f"\nLIMIT {self.r.randint(1, 1000)}"
        else:
            score[0] += 1
        return sql

    def query(self):
        score = [0]
        if self.r.random() < 0.65:
            ctes = []
            for k in range(self.r.randint(1, 4)):
                ctes.append(f"cte_{k} AS (\n{self.select(score)}\n)")
                score[0] += 2
            sql = "WITH " + ",\n".join(ctes) + "\n" + self.select(score) + ";"
        else:
            sql = self.select(score) + ";"
        s = score[0]
        label = 0 if s < 8 else 1 if s < 15 else 2 if s < 23 else 3
        return sql, label


def make_workload(n, seed):
    g = QueryGen(seed)
    return [g.query() for _ in range(n)]
