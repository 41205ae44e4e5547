"""Themed words for generated worlds, and the split each word belongs to.

A held-out test split is only held out if its words never occur in training
worlds (TextWorldExpress holds out object and room names the same way), so
every noun belongs to exactly one split, fixed by a hash of the word: the
same on every machine and for every seed, and independent of list order, so
adding a word to a theme never moves another word to another split.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class Theme:
    name: str
    rooms: tuple[str, ...]
    containers: tuple[str, ...]     # openable things that hold things
    supports: tuple[str, ...]       # surfaces things stand on
    things: tuple[str, ...]         # small things one can carry
    moods: tuple[str, ...]          # how a room feels, for its description
    doors: tuple[str, ...] = ("door",)


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(",") if w.strip())


THEMES = {
    "house": Theme(
        "house",
        rooms=_words("kitchen, pantry, hallway, parlour, dining room, study, library, bedroom, nursery, bathroom,"
                     " attic, cellar, laundry, sunroom, porch, garage, workshop, music room, guest room, landing,"
                     " scullery, boot room, larder, drawing room, playroom, office, loft, conservatory, den,"
                     " cloakroom, sewing room, games room, box room, utility room, breakfast room, vestibule,"
                     " gallery, studio, wine cellar, linen room"),
        containers=_words("cupboard, drawer, chest, toolbox, basket, hamper, wardrobe, cabinet, biscuit tin,"
                          " sewing box, trunk, bread bin, shoebox, laundry bag, dresser, fridge, safe, crate,"
                          " jewellery box, sideboard"),
        supports=_words("table, shelf, desk, counter, bench, windowsill, bookcase, mantelpiece, stool, sofa,"
                        " bed, ironing board, workbench, nightstand, piano, armchair, side table, trolley"),
        things=_words("apple, book, candle, cup, fork, glove, hat, kettle, lamp, letter, mug, napkin, pencil,"
                      " plate, ribbon, scarf, sock, spoon, teapot, towel, vase, whistle, wallet, umbrella,"
                      " thimble, button, comb, diary, envelope, jar, ladle, map, notebook, pillow, radio, ruler,"
                      " saucer, scissors, slipper, sponge, stamp, string, torch, trowel, watch, bowl, brush,"
                      " clock, coin, doll, funnel, hammer, marble, mirror, needle, peg, rope, soap, teddy bear,"
                      " tape, toy car, yarn, pen, lemon, loaf, cushion, photo, puzzle, kite"),
        moods=_words("tidy, dusty, sunny, cosy, cluttered, quiet, draughty, bright, narrow, cramped, airy, musty")),
    "castle": Theme(
        "castle",
        rooms=_words("great hall, armoury, chapel, kitchens, buttery, solar, keep, gatehouse, barracks, stables,"
                     " dungeon, guardroom, throne room, treasury, bakehouse, brewhouse, smithy, library, tower,"
                     " battlements, courtyard, well house, granary, mews, larder, cellar, bower, oratory,"
                     " undercroft, postern, gallery, wardrobe room, laundry, infirmary, scriptorium, kennels,"
                     " falconry, long gallery, bell tower, herb garden"),
        containers=_words("coffer, strongbox, chest, barrel, sack, casket, reliquary, satchel, quiver, cask,"
                          " hutch, ark, cupboard, pouch, basket, trunk, cabinet, box, bin, urn"),
        supports=_words("trestle, altar, rack, lectern, anvil, bench, throne, dais, shelf, table, plinth,"
                        " pedestal, sideboard, settle, stand, tabletop, ledge, hearthstone"),
        things=_words("goblet, sword, shield, helm, gauntlet, scroll, candlestick, tapestry, horn, banner, crown,"
                      " ring, amulet, dagger, lance, flagon, horseshoe, bridle, saddle, chalice, quill, inkpot,"
                      " seal, lantern, rope, loaf, cheese, wineskin, bow, arrow, mace, spear, torch, bell,"
                      " chain, scepter, orb, brooch, cloak, boot, belt, mitre, rosary, psalter, ledger, abacus,"
                      " whetstone, tongs, bellows, cauldron, spindle, distaff, lute, drum, flute, dice,"
                      " chessman, feather, hourglass, map, compass, key ring, medal, coin purse"),
        moods=_words("cold, gloomy, smoky, echoing, torchlit, damp, vaulted, draughty, grand, bare, musty, narrow")),
    "ship": Theme(
        "ship",
        rooms=_words("galley, bridge, engine room, cargo hold, forecastle, quarterdeck, mess, sickbay, brig,"
                     " chart room, crew quarters, captain cabin, radio room, pantry, laundry, workshop,"
                     " boiler room, storeroom, wardroom, chapel, gym, lounge, observation deck, corridor,"
                     " stairwell, lifeboat station, paint locker, rope locker, bosun store, gangway,"
                     " promenade, library, ballroom, purser office, cold store, magazine, pump room,"
                     " fan room, laboratory, hangar"),
        containers=_words("locker, footlocker, sea chest, crate, duffel bag, tool chest, first aid kit,"
                          " cabinet, drawer, bin, box, barrel, hamper, safe, canister, trunk, cupboard, case,"
                          " satchel, cooler"),
        supports=_words("chart table, bunk, workbench, shelf, counter, desk, rack, bench, console, table,"
                        " hatch cover, trolley, stand, ledge, pallet, stool, locker top, sill"),
        things=_words("compass, sextant, logbook, flare, lantern, rope, spanner, wrench, telescope, whistle,"
                      " life jacket, hammer, rivet, bucket, mop, ladle, kettle, mug, biscuit, map, pencil,"
                      " ruler, radio, battery, fuse, bolt, gasket, funnel, oilcan, tin, sardine tin, apple,"
                      " lemon, blanket, pillow, boot, cap, scarf, glove, photograph, letter, postcard,"
                      " harmonica, dice, cards, clipboard, stopwatch, binoculars, torch, knife, fork, spoon,"
                      " plate, cup, thermos, soap, towel, brush, comb, razor, medal, badge, key card, tag"),
        moods=_words("humming, cramped, salty, rusty, spotless, dim, swaying, narrow, stuffy, windswept, neat,"
                     " creaking"))
}

# adjectives that tell same-named things apart, in the order they are handed out
COLOURS = _words("red, blue, green, yellow, black, white, grey, brown, purple, orange, pink, silver")
MATERIALS = _words("brass, iron, silver, copper, bronze, golden, steel, wooden, glass, bone, tin, pewter")
PLACES = _words("north, south, east, west, upper, lower, inner, outer, old, new, little, great")


def split_of(word: str) -> str:
    """The split a word belongs to: 70% train, 10% dev, 20% test, by a hash of the word."""
    bucket = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:4], "big") % 10
    return "train" if bucket < 7 else "dev" if bucket < 8 else "test"


def words(theme: Theme, kind: str, split: str | None) -> tuple[str, ...]:
    """A theme's words of one kind (``rooms``, ``containers``, ``supports``, ``things``) in a split
    (None: all of them)."""
    pool = {"rooms": theme.rooms, "containers": theme.containers, "supports": theme.supports,
            "things": theme.things}[kind]
    if split is None:
        return pool
    key = (theme, kind, split)
    hit = _SPLIT_WORDS.get(key)
    if hit is None:   # a draft per reset asks again and again: each word hashed once
        hit = _SPLIT_WORDS[key] = tuple(w for w in pool if split_of(w) == split)
    return hit


_SPLIT_WORDS: dict[tuple, tuple[str, ...]] = {}   # (theme, kind, split) -> its words (a few themes' worth)
