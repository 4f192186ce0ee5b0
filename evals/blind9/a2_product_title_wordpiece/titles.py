"""Synthetic marketplace product titles (brand, line, model number, attributes) with a category label."""
import random

CATEGORIES = {
    "electronics": (["Samsung", "Sony", "Philips", "Logitech", "Asus", "Lenovo", "Xiaomi", "Panasonic"],
                    ["Wireless Headphones", "Bluetooth Speaker", "Smart TV", "Gaming Mouse", "Mechanical Keyboard",
                     "USB-C Charger", "Portable SSD", "Webcam", "Soundbar", "Tablet"],
                    ["{n}GB", "{n}W", "4K UHD", "Noise-Cancelling", "Dual-Band", "RGB", "Fast Charge", "Wi-Fi 6",
                     "Black", "Silver", "{n}-inch", "HDR10+"]),
    "beauty": (["L'Oréal", "Garnier", "Nivea", "Lancôme", "Clarins", "Yves Rocher", "Maybelline", "Vichy"],
               ["Moisturising Crème", "Eau de Toilette", "Mascara", "Serum", "Shampoo", "Face Mask", "Lip Balm",
                "Sunscreen SPF{n}", "Night Cream", "Micellar Water"],
               ["{n}ml", "Hyaluronic", "Vitamin C", "Sensitive Skin", "Anti-Âge", "Parfum", "Waterproof",
                "Vegan", "Paraben-Free", "Travel Size", "Pack of {n}", "Rosé"]),
    "kitchen": (["Bosch", "De'Longhi", "Krups", "Tefal", "Müller", "Kenwood", "Smeg", "Le Creuset"],
                ["Espresso Machine", "Stand Mixer", "Kettle", "Toaster", "Frying Pan", "Blender", "Air Fryer",
                 "Food Processor", "Cocotte", "Knife Set"],
                ["{n}L", "{n}W", "Stainless Steel", "Non-Stick", "Dishwasher Safe", "Cream", "{n}-Piece",
                 "Induction", "BPA-Free", "Crème Brûlée Edition", "Matte", "{n}cm"]),
    "toys": (["Lego", "Hasbro", "Mattel", "Playmobil", "Ravensburger", "Schleich", "Hape", "Vtech"],
             ["Building Set", "Puzzle", "Board Game", "Action Figure", "Doll House", "Remote Control Car",
              "Plush Toy", "Train Set", "Craft Kit", "Marble Run"],
             ["{n} Pieces", "Ages {n}+", "Educational", "Battery Operated", "Wooden", "Collector's Edition",
              "Glow-in-the-Dark", "Multicolour", "Gift Box", "Jeu Éducatif", "Spiel", "{n} Players"]),
    "sports": (["Adidas", "Nike", "Puma", "Decathlon", "Asics", "Salomon", "Wilson", "Garmin"],
               ["Running Shoes", "Yoga Mat", "Football", "Tennis Racket", "Cycling Jersey", "Water Bottle",
                "Fitness Tracker", "Backpack", "Ski Goggles", "Resistance Bands"],
               ["Size {n}", "Men's", "Women's", "Breathable", "Lightweight", "{n}L", "Anti-Slip", "Reflective",
                "Gore-Tex", "Édition Limitée", "Quick-Dry", "{n}mm"]),
    "grocery": (["Nestlé", "Häagen-Dazs", "Lindt", "Barilla", "Lavazza", "Danone", "Kellogg's", "Côte d'Or"],
                ["Dark Chocolate", "Espresso Beans", "Spaghetti", "Breakfast Cereal", "Ice Cream", "Green Tea",
                 "Olive Oil", "Granola Bars", "Crêpes", "Café Moulu"],
                ["{n}g", "Pack of {n}", "Organic", "Gluten-Free", "{n}% Cacao", "Fair Trade", "Sugar-Free",
                 "Bio", "Family Size", "Arabica", "Crème", "Vegan"]),
    "auto": (["Bosch", "Michelin", "Castrol", "Valeo", "Škoda", "Citroën", "Osram", "Thule"],
             ["Wiper Blades", "Motor Oil", "Car Battery", "Headlight Bulb", "Roof Box", "Tyre Inflator",
              "Dash Cam", "Seat Covers", "Floor Mats", "Jump Starter"],
             ["{n}W-{n}", "{n}Ah", "{n}V", "Universal Fit", "H7", "All-Season", "{n} Litres", "Pair",
              "Heavy-Duty", "Pièce d'Origine", "{n}mm", "LED"]),
    "home": (["IKEA", "Dyson", "Kärcher", "Philips", "Vileda", "Brabantia", "Rowenta", "Zara Home"],
             ["Vacuum Cleaner", "Steam Mop", "Desk Lamp", "Duvet Cover", "Storage Box", "Air Purifier",
              "Laundry Basket", "Curtains", "Bath Towel", "Scented Candle"],
             ["{n}x{n}cm", "Cordless", "{n}W", "Cotton", "Set of {n}", "Grey", "Washable", "HEPA", "Linen",
              "Décor", "Energy Class A", "{n} Watt"]),
}
CATEGORY_NAMES = sorted(CATEGORIES)
_ALNUM = "ABCDEFGHJKLMNPRSTVWXYZ0123456789"


def _model_number(rng):
    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append("".join(rng.choice(_ALNUM) for _ in range(rng.randint(2, 6))))
    return "-".join(parts)


def _fill(template, rng):
    while "{n}" in template:
        template = template.replace("{n}", str(rng.choice([2, 4, 5, 6, 8, 10, 12, 16, 20, 32, 50, 64,
                                                            100, 128, 250, 500, 1000])), 1)
    return template


def make_products(num_products, seed):
    rng = random.Random(seed)
    titles, labels = [], []
    for _ in range(num_products):
        label = rng.randrange(len(CATEGORY_NAMES))
        brands, nouns, attrs = CATEGORIES[CATEGORY_NAMES[label]]
        # cross-category noise: brands and attributes are shared between some categories
        if rng.random() < 0.15:
            brands = CATEGORIES[rng.choice(CATEGORY_NAMES)][0]
        words = [rng.choice(brands), _model_number(rng), rng.choice(nouns)]
        for a in rng.sample(attrs, rng.randint(3, 7)):
            words.append(_fill(a, rng))
        if rng.random() < 0.5:
            words.insert(2, _model_number(rng))
        title = " ".join(words)
        if rng.random() < 0.2:
            title = title.upper()
        titles.append(title + rng.choice(["", "", " - NEW", " (Renewed)", ", 2024 Model", " | Free Delivery"]))
        labels.append(label)
    return titles, labels


_OPENERS = ["Discover the new {b} {noun}.", "The {b} {noun} is designed for everyday use.",
            "Upgrade your routine with this {noun} from {b}.", "Meet the {noun}: quality you can trust from {b}.",
            "Our best-selling {noun} is back in a refreshed design."]
_SENTENCES = {
    "electronics": ["Enjoy crystal-clear sound and deep bass for hours of listening.",
                    "Connects instantly via Bluetooth 5.3 to phones, tablets and laptops.",
                    "The battery lasts up to 30 hours and recharges fully in under two hours.",
                    "Compatible with Windows, macOS, Android and iOS devices.",
                    "Its compact, lightweight design fits easily in a bag or pocket."],
    "beauty": ["Enriched with hyaluronic acid and vitamin E to hydrate and protect the skin.",
               "Dermatologically tested and suitable for sensitive skin.",
               "Apply morning and evening to clean skin and massage gently.",
               "The light, non-greasy formula absorbs quickly without residue.",
               "Fragrance notes of bergamot, jasmine and a hint of crème brûlée."],
    "kitchen": ["Made from durable stainless steel with an ergonomic handle.",
                "The non-stick coating makes cooking and cleaning effortless.",
                "Suitable for gas, electric, ceramic and induction hobs.",
                "Brew barista-quality espresso, cappuccino and café crème at home.",
                "All removable parts are dishwasher safe for easy cleaning."],
    "toys": ["Encourages creativity, problem solving and fine motor skills.",
             "Made from sustainably sourced wood and non-toxic paints.",
             "Includes a colourful illustrated instruction booklet.",
             "A perfect birthday or holiday gift for boys and girls.",
             "Batteries are not included; requires three AA batteries."],
    "sports": ["The breathable mesh upper keeps your feet cool and dry.",
               "A cushioned midsole absorbs impact on long runs.",
               "Tracks heart rate, steps, sleep and over 20 sports modes.",
               "Reflective details improve visibility in low light.",
               "Ideal for training, hiking, cycling and everyday workouts."],
    "grocery": ["Made with carefully selected ingredients from sustainable farms.",
                "Rich, intense flavour with notes of cocoa and roasted hazelnut.",
                "Store in a cool, dry place away from direct sunlight.",
                "Suitable for vegetarians; may contain traces of nuts and milk.",
                "Perfect for breakfast, dessert or a quick snack on the go."],
    "auto": ["Fits most cars, vans and SUVs with a universal adapter.",
             "Tested to meet or exceed original equipment specifications.",
             "Provides reliable starting power even in cold weather.",
             "Easy installation in minutes without special tools.",
             "Reduces glare and improves visibility on wet roads."],
    "home": ["Powerful suction removes dust, pet hair and allergens.",
             "Made from 100% organic cotton for a soft, breathable feel.",
             "The cordless design lets you clean every room without limits.",
             "Machine washable at 40 degrees; do not tumble dry.",
             "A timeless décor piece that fits any living room or bedroom."],
}
_CLOSERS = ["Satisfaction guaranteed or your money back.", "Ships in recyclable packaging.",
            "Two-year manufacturer warranty included.", "Customer service available seven days a week.",
            "Order today and enjoy free returns within 30 days."]


def make_descriptions(titles, labels, seed):
    """Marketing-style descriptions: an opener naming the brand, 3-5 category sentences, a closer."""
    rng = random.Random(seed)
    out = []
    for title, label in zip(titles, labels):
        name = CATEGORY_NAMES[label]
        brand = title.split()[0]
        noun = rng.choice(CATEGORIES[name][1]).lower()
        parts = [rng.choice(_OPENERS).format(b=brand, noun=noun)]
        parts += rng.sample(_SENTENCES[name], 5)
        # a sentence from another category now and then, as in scraped listings
        if rng.random() < 0.3:
            parts.append(rng.choice(_SENTENCES[rng.choice(CATEGORY_NAMES)]))
        parts.append("Specifications: " + title + ".")
        parts.append(rng.choice(_CLOSERS))
        extra = rng.sample(CATEGORIES[name][2], 6) + rng.sample(CATEGORIES[name][1], 4)
        parts.append("Keywords: " + ", ".join(_fill(a, rng).lower() for a in extra) + ".")
        out.append(" ".join(parts))
    return out
