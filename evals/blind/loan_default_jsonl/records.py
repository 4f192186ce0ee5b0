"""Loan applications as JSON lines (synthetic, seeded) -- what an export from a database looks like."""
import json
import random

GRADES = ["A", "B", "C", "D", "E", "F", "G"]
PURPOSES = ["car", "credit_card", "debt_consolidation", "educational", "home_improvement", "house",
            "major_purchase", "medical", "moving", "renewable_energy", "small_business", "vacation"]
STATES = ["AK", "AL", "AR", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "HI", "IA", "ID", "IL",
          "IN", "KS", "KY", "LA", "MA", "MD", "ME", "MI", "MN", "MO", "MS", "MT", "NC", "ND", "NE",
          "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT",
          "VA", "VT", "WA", "WI", "WV", "WY"]
EMP = ["< 1 year", "1 year", "2 years", "3 years", "4 years", "5 years", "6 years", "7 years",
       "8 years", "9 years", "10+ years", "n/a"]
HOME = ["RENT", "OWN", "MORTGAGE", "OTHER"]


def generate_lines(n, seed):
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        grade = rng.choice(GRADES)
        g = GRADES.index(grade)
        income = round(rng.lognormvariate(11.0, 0.5), 2)
        dti = rng.uniform(0, 35)
        util = rng.uniform(0, 100)
        term = rng.choice([36, 60])
        risk = 0.08 * g + 0.01 * dti + 0.004 * util - 0.3 * (income > 80000) + 0.15 * (term == 60)
        rec = {
            "id": f"L{100000 + i}",
            "loan_amnt": rng.randrange(1000, 35000, 25),
            "term": f" {term} months",
            "int_rate": f"{5.0 + 3.1 * g + rng.uniform(-1, 1):.2f}%",
            "grade": grade,
            "emp_length": rng.choice(EMP),
            "home_ownership": rng.choice(HOME),
            "annual_inc": income,
            "purpose": rng.choice(PURPOSES),
            "addr_state": rng.choice(STATES),
            "dti": f"{dti:.2f}",
            "revol_util": f"{util:.1f}%",
            "issue_d": f"{rng.choice(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'])}-{rng.randint(2012, 2018)}",
            "delinq_2yrs": rng.choice([0, 0, 0, 0, 1, 2]),
            "default": int(rng.random() < 1 / (1 + 2.718281828 ** (-(risk - 1.0) * 3))),
        }
        lines.append(json.dumps(rec))
    return lines
