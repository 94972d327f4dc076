"""How a posting's parts are read, for every stage and capability that compares them.

`normalise`: the normal forms of text, company names, titles (with their level split off),
places and URLs. `vocabulary`: the words those forms rest on (role synonyms, abbreviations,
level words, cities and their exonyms, regions by continent). Dedupe matches on them, fit scores
with them, the offline template names places with them.
"""
