#!/usr/bin/env python3
"""Deterministic fruit dumps in the shape of seed 003, for samples, tests and memory checks.

    generate_fruits.py --count N [--seed S] [--format json|keyed|ndjson] [--gzip] [--broken] OUT

`json` is a top-level array, `keyed` is {"fruits": [...]}, `ndjson` one fruit per line.
`--broken` (ndjson only) replaces a few records with the kinds of damage the README shows:
a wrong type, a missing field, malformed JSON, a bad video URL, a duplicate recipe title.
Output streams to the file, so any N runs in constant memory. Gzip output has mtime 0, so the
same arguments always give the same bytes.
"""
import argparse
import gzip
import json
import random
import re
import unicodedata
import sys

FRUITS = [
    ("Apple", "red"), ("Banana", "yellow"), ("Cherry", "dark red"), ("Kiwi", "green"),
    ("Mango", "orange"), ("Papaya", "orange"), ("Pitaya (火龍果)", "pink"), ("Lychee (荔枝)", "pink"),
    ("Açaí", "purple"), ("Maçã verde", "green"), ("Pomelo", "yellow"), ("Feijoa", "green"),
    ("Ananas", "golden"), ("Mirabelle", "yellow"), ("Äpfelchen", "red"), ("Ñame dulce", "brown"),
    ("Durian (ทุเรียน)", "olive"), ("Yuzu (柚子)", "yellow"), ("Cloudberry (Hjortron)", "amber"),
    ("Jabuticaba", "black"), ("Guava", "green"), ("Quince", "yellow"), ("Persimmon (柿)", "orange"),
    ("Rambutan", "red"), ("Mangosteen", "purple"), ("Sapodilla", "brown"), ("Tamarind", "brown"),
    ("Blackcurrant", "black"), ("Gooseberry", "green"), ("Cranberry", "red"), ("Blueberry", "blue"),
    ("Raspberry", "red"), ("Fig", "purple"), ("Date", "brown"), ("Apricot", "orange"),
    ("Nectarine", "red"), ("Plum", "purple"), ("Pear", "green"), ("Grapefruit", "pink"),
    ("Clementine", "orange"), ("Kumquat", "orange"), ("Lime", "green"), ("Lemon", "yellow"),
    ("Passion fruit (Maracujá)", "purple"), ("Starfruit", "yellow"), ("Jackfruit", "green"),
    ("Soursop (Guanábana)", "green"), ("Physalis", "orange"),
]
DISHES = ["Tart", "Sorbet", "Chutney", "Smoothie", "Crumble", "Salsa", "Jam", "Compote",
          "Pancakes", "Salad", "Clafoutis", "Lassi", "Granita", "Upside-down cake"]
STYLES = ["Grandma's", "Quick", "Spiced", "Classic", "Vegan", "Five-minute", "Crème", "Smoky"]


def slugify(text):
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def fruit(index, rng):
    base_name, color = FRUITS[index % len(FRUITS)]
    generation = index // len(FRUITS)
    name = base_name if generation == 0 else f"{base_name} #{generation + 1}"
    count = rng.randint(2, 5)
    dishes = rng.sample(DISHES, count)
    recipes = []
    for dish in dishes:
        style = rng.choice(STYLES)
        slug = slugify(f"{base_name.split(' ')[0]}-{dish}")
        recipes.append({
            "title": f"{style} {base_name} {dish}",
            "description": f"{style} {dish.lower()} with {base_name.lower()}: "
                           f"{rng.randint(2, 9)} ingredients, {rng.randint(10, 90)} minutes, "
                           f"serves {rng.randint(1, 8)}.",
            "videoTutorial": f"https://videos.example.com/{slug}/{index:08d}",
        })
    return {"fruitID": f"F{index + 1:07d}", "name": name, "color": color, "recipes": recipes}


def broken_line(index, rng, kind):
    record = fruit(index, rng)
    if kind == "wrong-type":
        record["color"] = 7
    elif kind == "missing-field":
        del record["name"]
    elif kind == "bad-url":
        record["recipes"][1]["videoTutorial"] = "not a url"
    elif kind == "duplicate-title":
        record["recipes"][1]["title"] = record["recipes"][0]["title"]
    text = json.dumps(record, ensure_ascii=False)
    if kind == "malformed":
        text = text[: len(text) // 2] + "}"  # cut mid-record: the JSON is unterminated
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--format", choices=["json", "keyed", "ndjson"], default="json")
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--broken", action="store_true")
    parser.add_argument("out")
    args = parser.parse_args()
    if args.broken and args.format != "ndjson":
        sys.exit("--broken needs --format ndjson")
    rng = random.Random(args.seed)
    raw = open(args.out, "wb")
    out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if args.gzip else raw
    damage = {}
    if args.broken:
        step = max(args.count // 6, 1)
        for n, kind in enumerate(["wrong-type", "missing-field", "malformed", "bad-url", "duplicate-title"]):
            damage[step * (n + 1) - 1] = kind
    if args.format == "keyed":
        out.write(b'{"exportedAt": "2026-11-01T00:00:00Z", "fruits": [\n')
    elif args.format == "json":
        out.write(b"[\n")
    for index in range(args.count):
        if index in damage:
            text = broken_line(index, rng, damage[index])
        else:
            text = json.dumps(fruit(index, rng), ensure_ascii=False)
        if args.format == "ndjson":
            out.write(text.encode() + b"\n")
        else:
            out.write(b"  " + text.encode() + (b",\n" if index + 1 < args.count else b"\n"))
    if args.format == "keyed":
        out.write(b'], "source": "sluice sample generator"}\n')
    elif args.format == "json":
        out.write(b"]\n")
    if out is not raw:
        out.close()
    raw.close()


if __name__ == "__main__":
    main()
