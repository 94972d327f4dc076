"""The words a "Who is hiring?" comment is read by: roles, places, workplaces, the rest.

English first, with the German, Spanish and French forms people use in the thread (Entwickler,
Desarrollador, Ingénieur; vor Ort, Remoto, Presencial, Híbrido, sur site). Places are known by
their shape ("Boulder, CO", "Zürich, Switzerland") or by name (countries, US states, the cities
the thread names most); a role by its head noun (Engineer, Developer, Designer...).
"""

from __future__ import annotations

import re
from typing import Final

# A role's head noun, in the languages the thread is written in.
ROLE: Final = re.compile(
    r"\b(?:engineers?|developers?|devs?|programmers?|designers?|scientists?|researchers?|analysts?"
    r"|architects?|managers?|leads?|directors?|heads?\s+of|vp|cto|interns?|internship"
    r"|recruiters?|writers?|administrators?|admins?|specialists?|consultants?|technicians?"
    r"|marketers?|sre|swe|sde|sdet|mle|dba|tpm|eng|devops|qa|tester|product\s+owner|pm|strategist|economists?|statisticians?"
    r"|physicists?|chemists?|biologists?|artists?|animators?|editors?|counsel|accountants?"
    r"|coordinators?|operators?|advocates?|evangelists?|maintainers?|officers?|producers?|owners?"
    r"|member\s+of\s+(?:the\s+)?technical\s+staff|mts|liaisons?|nurses?|teachers?|tutors?"
    r"|entwickler(?:in)?|ingenieur(?:in)?|berater|desarrollador(?:a|es)?|ingenier[oa]s?"
    r"|développeu(?:r|se)|ingénieur|programador(?:a)?|diseñador(?:a)?|analista)\b"
    r"|エンジニア|デザイナー|開発者",
    re.I,
)
# A comment that names several roles without naming them first.
SEVERAL: Final = re.compile(
    r"^(?:hiring\s+(?:for\s+)?)?(?:multiple|several|various|many|open|all|\d+|engineering|tech(?:nical)?"
    r"|design|product)\s+(?:[\w-]+\s+){0,2}(?:roles|positions|openings|jobs)\b"
    r"|^(?:we(?:'re| are)\s+)?hiring(?:\s+for)?\s*:?$|^(?:roles|positions|openings)$",
    re.I,
)
EMPLOYMENT: Final = re.compile(
    r"\b(?P<full>full[- ]?time|ft|permanent|vollzeit|festanstellung|tiempo\s+completo)\b"
    r"|\b(?P<part>part[- ]?time|pt|teilzeit)\b"
    r"|\b(?<!smart\s)(?P<contract>contract(?:or)?|1099|b2b|freelance|freelancer|c2c|fixed[- ]term)\b"
    r"|\b(?P<intern>intern(?:ship)?s?|praktikum|werkstudent(?:in)?|co-?op)\b",
    re.I,
)
EMPLOYMENT_NAMES: Final = {
    "full": "Full-time",
    "part": "Part-time",
    "contract": "Contract",
    "intern": "Internship",
}

# Where the work is done. "NO REMOTE", "not remote" say on-site; hybrid wins over remote.
NOT_REMOTE: Final = re.compile(r"\b(?:no|not|non)[- ]?remote\b|\bremote\s*:\s*no\b", re.I)
HYBRID: Final = re.compile(r"\b(?:hybrid|hybride|híbrido|hibrido|teilweise\s+remote)\b", re.I)
REMOTE: Final = re.compile(
    r"\b(?:remote(?:[- ]first|[- ]friendly|[- ]only|[- ]ok)?|fully\s+remote|wfh|work\s+from\s+home"
    r"|anywhere|distributed|worldwide|homeoffice|home[- ]office|mobiles\s+arbeiten|remoto|teletrabajo"
    r"|en\s+remoto|a\s+distancia|télétravail|teletravail|à\s+distance)\b",
    re.I,
)
ONSITE: Final = re.compile(
    r"\b(?:on[- ]?site|onsite|in[- ]office|office[- ]based|in[- ]person|irl|vor\s+ort|presencial"
    r"|sur\s+site|en\s+présentiel|präsenz|in\s+the\s+office|no\s+remote)\b",
    re.I,
)
# Words that only say where the work is done, with the region a remote role is limited to.
WHERE_WORDS: Final = re.compile(
    r"\b(?:remote(?:[- ]first|[- ]friendly|[- ]only|[- ]ok)?|fully|wfh|anywhere|distributed|hybrid|hybride"
    r"|híbrido|on[- ]?site|onsite|in[- ]office|in[- ]person|irl|vor\s+ort|presencial|sur\s+site|remoto"
    r"|homeoffice|home[- ]office|möglich|no|not|non|only|ok|first|friendly|or|and|days?|\d+|per"
    r"|week|/|work\s+from\s+home|within|the|in|possible|optional|welcome|is|a|an|option|from|desde|en|aus"
    r"|von|depuis)\b",
    re.I,
)
REGION_HINT: Final = re.compile(
    r"^(?:(?:us|usa|u\.s\.|eu|uk|emea|apac|latam|americas|north\s+america|europe|canada|worldwide"
    r"|global|anywhere|[a-z]+\s+residents|(?:us|eu|est|pst|cet|utc|gmt)\s*[+±-]?\s*\d*\s*(?:h|hours)?"
    r"|(?:us|eu|european|americas)\s+time\s*zones?|[a-z]{2,3}\s+timezones?)(?:\s*[/,&]\s*|\s+or\s+|\s+and\s+)?)+"
    r"(?:\s*-?\s*only)?$",
    re.I,
)
VISA: Final = re.compile(
    r"\b(?:visas?|sponsor(?:ship|s|ed)?|h-?1b|relocation|relocate|clearance|citizen(?:ship)?|green\s+card"
    r"|itar|us\s+person|work\s+permit|right\s+to\s+work|blue\s+card)\b",
    re.I,
)
FUNDING: Final = re.compile(
    r"\b(?:series\s+[a-f]\b|seed|pre-seed|yc\s+[wsfx]\d{2}|\(yc|bootstrapped|profitable|funded|raised"
    r"|backed|ipo|public\s+company|unicorn|startup)\b",
    re.I,
)
EQUITY_ONLY: Final = re.compile(r"^\+?\s*(?:equity|stock|options|bonus|benefits)\b", re.I)
_TECH_WORDS = (
    "python django flask fastapi ruby rails go golang rust java kotlin scala clojure elixir erlang "
    "haskell ocaml c c++ c# .net f# swift swiftui objective-c javascript typescript node node.js "
    "nodejs react vue angular svelte next.js nextjs hotwire php laravel perl r julia matlab sql "
    "postgres postgresql mysql sqlite redis kafka spark airflow dbt snowflake bigquery aws gcp azure "
    "kubernetes k8s docker terraform ansible linux graphql grpc trpc pytorch tensorflow jax llms llm "
    "ml ai webassembly wasm zig nix elasticsearch mongodb dynamodb cassandra clickhouse duckdb "
    "flutter dart unity unreal html css tailwind sass celery rabbitmq nats ros fpga verilog vhdl "
    "embedded cuda jetpack compose android ios mlir kaldi zephyr rtos yocto postgis looker "
)
TECH: Final = frozenset(_TECH_WORDS.split())
_STATES = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY"
    " NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC ON QC BC AB MB NS NB NL PE SK NSW VIC"
    " QLD WA SA TAS ACT"
)
STATE_CODES: Final = frozenset(_STATES.split())
COUNTRIES: Final = frozenset(
    n.strip().casefold()
    for n in """USA;US;U.S.;United States;America;Canada;Mexico;Brazil;Argentina;Chile;Colombia;Peru;UK;
    U.K.;United Kingdom;England;Scotland;Wales;Ireland;Germany;Deutschland;Austria;Österreich;
    Switzerland;Schweiz;France;Spain;España;Portugal;Italy;Italia;Netherlands;NL;The Netherlands;
    Holland;Belgium;Luxembourg;Denmark;Sweden;Norway;Finland;Iceland;Estonia;Latvia;Lithuania;
    Poland;Czechia;Czech Republic;Slovakia;Hungary;Romania;Bulgaria;Greece;Croatia;Serbia;Slovenia;
    Ukraine;Turkey;Israel;UAE;United Arab Emirates;Saudi Arabia;Egypt;Nigeria;Kenya;South Africa;
    Ghana;Morocco;India;Pakistan;Bangladesh;Sri Lanka;Singapore;Malaysia;Indonesia;Thailand;Vietnam;
    Philippines;Japan;South Korea;Korea;China;Taiwan;Hong Kong;Australia;New Zealand;EU;Europe;
    EMEA;APAC;LATAM;North America;South America;Asia;Africa;Americas;Worldwide;Global""".replace(
        "\n", ""
    ).split(";")
)
US_STATES: Final = frozenset(
    n.strip().casefold()
    for n in """Alabama;Alaska;Arizona;Arkansas;California;Colorado;Connecticut;Delaware;Florida;Georgia;
    Hawaii;Idaho;Illinois;Indiana;Iowa;Kansas;Kentucky;Louisiana;Maine;Maryland;Massachusetts;
    Michigan;Minnesota;Mississippi;Missouri;Montana;Nebraska;Nevada;New Hampshire;New Jersey;
    New Mexico;New York;North Carolina;North Dakota;Ohio;Oklahoma;Oregon;Pennsylvania;Rhode Island;
    South Carolina;South Dakota;Tennessee;Texas;Utah;Vermont;Virginia;Washington;West Virginia;
    Wisconsin;Wyoming;Ontario;Quebec;British Columbia;Alberta;Bavaria;Bayern""".replace("\n", "").split(";")
)
CITIES: Final = frozenset(
    n.strip().casefold()
    for n in """SF;NYC;LA;DC;SF Bay Area;Bay Area;Silicon Valley;San Francisco;New York;New York City;
    Brooklyn;Manhattan;Seattle;Boston;Cambridge;Austin;Chicago;Denver;Boulder;Los Angeles;San Diego;
    San Jose;Palo Alto;Mountain View;Menlo Park;Oakland;Berkeley;Portland;Atlanta;Miami;Dallas;
    Houston;Phoenix;Philadelphia;Pittsburgh;Detroit;Minneapolis;Raleigh;Durham;Nashville;
    Salt Lake City;Washington;Baltimore;Toronto;Montreal;Montréal;Vancouver;Ottawa;Waterloo;Calgary;
    London;Manchester;Edinburgh;Bristol;Cambridge UK;Oxford;Dublin;Berlin;Munich;München;Hamburg;
    Frankfurt;Cologne;Köln;Stuttgart;Düsseldorf;Vienna;Wien;Zurich;Zürich;Geneva;Basel;Paris;Lyon;
    Amsterdam;Rotterdam;Utrecht;Eindhoven;The Hague;Brussels;Copenhagen;Stockholm;Oslo;Helsinki;
    Tallinn;Riga;Vilnius;Warsaw;Krakow;Kraków;Prague;Budapest;Bucharest;Madrid;Barcelona;Valencia;
    Lisbon;Porto;Milan;Rome;Athens;Tel Aviv;Dubai;Bangalore;Bengaluru;Mumbai;Delhi;Pune;Hyderabad;
    Chennai;Singapore;Tokyo;Osaka;Seoul;Taipei;Hong Kong;Shanghai;Beijing;Shenzhen;Sydney;Melbourne;
    Brisbane;Perth;Auckland;Wellington;Mexico City;CDMX;São Paulo;Sao Paulo;Buenos Aires;Bogotá;
    Bogota;Santiago;Lagos;Nairobi;Cape Town;Johannesburg;Cairo;Istanbul;Kyiv;Halifax;Anchorage;
    Charlotte;Chandler""".replace("\n", "").split(";")
)
PLACE_SHAPE: Final = re.compile(
    r"^(?P<city>[A-ZÀ-Ýa-zà-ÿ\u00c0-\u024f .'-]{2,40}),\s*(?P<area>[A-Z]{2,3}|[A-ZÀ-Ý][\w .'-]{2,30})$"
)
EMAIL: Final = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+")
URL: Final = re.compile(r"\b(?:https?://|www\.)\S+", re.I)
# Lowercase words that make a field a sentence, not a name.
SENTENCE_WORDS: Final = re.compile(
    r"\b(?:we|we're|we\u2019re|our|us|you|your|is|are|was|be|the|a|an|to|for|with|that|this|who|and|of"
    r"|in|on|at|looking|build|building|make|making|help|helps|want|love|care|cares|join|new|grads?"
    r"|welcome|required|preferred|plus|experience|years?|yrs|support|team|small|big)\b"
)
