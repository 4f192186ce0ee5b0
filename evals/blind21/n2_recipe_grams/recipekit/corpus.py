"""Synthetic recipe cards: free-text ingredient lines as people type them."""
import random

CATEGORIES = ["baking", "soup", "salad", "curry", "dessert"]

INGREDIENTS = {
    "baking": ["all-purpose flour", "stoneground wholewheat flour", "aluminium-free baking powder",
               "bicarbonate of soda", "granulated sugar", "dark muscovado sugar", "unsalted butter",
               "free-range eggs", "buttermilk", "pure vanilla extract", "flaky sea salt", "instant dried yeast"],
    "soup": ["yellow onion", "heirloom carrots", "celery stalks", "garlic cloves", "homemade chicken stock",
             "low-sodium vegetable stock", "yukon gold potatoes", "extra-virgin olive oil", "kosher salt",
             "freshly ground black pepper", "dried bay leaves", "heavy whipping cream"],
    "salad": ["romaine lettuce", "english cucumber", "cherry tomatoes", "red onion", "crumbled feta cheese",
              "extra-virgin olive oil", "freshly squeezed lemon juice", "red wine vinegar", "wildflower honey",
              "toasted walnuts", "kosher salt", "freshly ground black pepper"],
    "curry": ["yellow onion", "garlic cloves", "fresh ginger root", "unsweetened coconut milk",
              "madras curry powder", "ground turmeric", "toasted cumin seeds", "canned chickpeas",
              "basmati rice", "vegetable oil", "crushed tomatoes", "fresh cilantro leaves"],
    "dessert": ["bittersweet chocolate", "heavy whipping cream", "caster sugar", "free-range eggs",
                "unsalted butter", "dutch-processed cocoa powder", "pure vanilla extract", "fresh strawberries",
                "mascarpone cheese", "wildflower honey", "whole milk", "confectioners sugar"],
}

QUANTITIES = ["1", "2", "3", "4", "1/2", "1/4", "3/4", "1/3", "2/3", "1 1/2", "2 1/2", "1 1/4", "0.5", "1.5",
              "100", "150", "200", "250", "400", "500"]
UNITS = ["cup", "cups", "c.", "tbsp", "tablespoon", "tablespoons", "tsp", "teaspoon", "teaspoons", "g", "grams",
         "kg", "oz", "ounces", "lb", "pound", "ml", "l", "pinch", ""]
PREP = ["", "", ", sifted", ", roughly chopped", ", finely chopped", ", melted and cooled", ", softened",
        ", peeled and diced", ", minced", ", at room temperature", ", divided", " (optional)", ", to taste",
        ", thinly sliced", ", lightly beaten", ", plus extra for greasing"]


def generate_recipes(n, min_lines, max_lines, seed):
    rng = random.Random(seed)
    recipes = []
    for _ in range(n):
        label = rng.randrange(len(CATEGORIES))
        pool = INGREDIENTS[CATEGORIES[label]]
        # a few ingredients borrowed from other categories so the task is not trivial
        others = [x for c in CATEGORIES if c != CATEGORIES[label] for x in INGREDIENTS[c]]
        k = rng.randint(min_lines, max_lines)
        names = rng.sample(pool, min(k - 2, len(pool))) + rng.sample(others, 2)
        lines = []
        for name in names:
            qty = rng.choice(QUANTITIES)
            unit = rng.choice(UNITS)
            prep = rng.choice(PREP)
            lines.append(" ".join(p for p in (qty, unit, name) if p) + prep)
        recipes.append({"lines": lines, "label": label})
    return recipes
