"""Tokens with a known shape: redacted wherever they appear, under any name.

`SHAPES` is the table: one entry per format a secret scanner knows, written for
sparkls from the formats the rules of gitleaks and the plugins of detect-secrets
describe (`source` names the file each comes from, in the repository and at the
commit `GITLEAKS` and `DETECT_SECRETS` give; token formats are facts, the regexes are
ours). `ANCHORED` holds the secrets found by what surrounds them (a webhook's path
after its host, `AccountKey=`...), each searched only where its literal is.

All shapes run as one pattern (`_ANY`) that walks the text run by run (see `_RUN`),
so the text is read once, in linear time; the shapes are grouped by their first
character so that each long run tries few of them. Every repetition is bounded.
A match with a documentation filler in it (`glptt-xxxxxxxx...`) is not a token.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sparkls.guard.secrets.edits import Budget

GITLEAKS = ("https://github.com/gitleaks/gitleaks", "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b", "cmd/generate/config/rules/")
DETECT_SECRETS = ("https://github.com/Yelp/detect-secrets", "5e141933554a0b74e7341841f318be21e895339c", "detect_secrets/plugins/")
MIN_RUN = 16  # token characters a shape needs at least (the shortest: `AKIA` + 16 is 20)
MAX_TOKEN = 2200  # the longest match a shape can make, in bytes


class Shape(NamedTuple):
    id: str
    pattern: str  # a regex over the text's UTF-8 bytes (ASCII only)
    source: str  # "gitleaks:<rule file>" or "detect-secrets:<plugin file>"


_END = r"(?![A-Za-z0-9])"  # no letter or digit right after a token
_B64END = r"(?![A-Za-z0-9+/])"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

SHAPES: tuple[Shape, ...] = (
    Shape("1password-service-account", r"ops_eyJ[A-Za-z0-9+/]{250,2000}={0,3}", "gitleaks:1password.go"),
    Shape("1password-secret-key", r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + _END, "gitleaks:1password.go"),
    Shape("adobe-client-secret", r"p8e-[A-Za-z0-9]{32}" + _END, "gitleaks:adobe.go"),
    Shape("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "gitleaks:age.go"),
    Shape("airtable-pat", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _END, "gitleaks:airtable.go"),
    Shape("alibaba-access-key-id", r"LTAI[A-Za-z0-9]{20}" + _END, "gitleaks:alibaba.go"),
    Shape("anthropic-api-key", r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,120}", "gitleaks:anthropic.go"),
    Shape("artifactory-api-key", r"AKCp[A-Za-z0-9]{10,80}" + _END, "gitleaks:artifactory.go, detect-secrets:artifactory.py"),
    Shape("artifactory-reference-token", r"cmVmd[A-Za-z0-9]{59}" + _END, "gitleaks:artifactory.go"),
    Shape("artifactory-password", r"AP[0-9A-F](?=[A-Za-z]*[0-9])[A-Za-z0-9]{8,80}" + _END, "detect-secrets:artifactory.py"),
    Shape("atlassian-api-token", r"ATATT3[A-Za-z0-9_=-]{180,200}", "gitleaks:atlassian.go"),
    Shape("authress-access-key", r"(?i:(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.)acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}", "gitleaks:authress.go"),
    Shape("aws-access-key-id", "|".join(prefix + r"[A-Z0-9]{16}" + _END for prefix in ("A3T[A-Z0-9]", "AKIA", "ASIA", "ABIA", "ACCA")), "gitleaks:aws.go, detect-secrets:aws.py"),
    Shape("aws-bedrock-api-key", r"ABSK[A-Za-z0-9+/]{109,269}={0,2}", "gitleaks:aws.go"),
    Shape("aws-bedrock-short-lived", r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]{0,2000}", "gitleaks:aws.go"),
    Shape("azure-ad-client-secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}", "gitleaks:azure.go"),
    Shape("clickhouse-cloud-secret", r"4b1d[A-Za-z0-9]{38}" + _END, "gitleaks:clickhouse.go"),
    Shape("clojars-api-token", r"CLOJARS_[A-Za-z0-9]{60}|clojars_[A-Za-z0-9]{60}", "gitleaks:clojars.go"),
    Shape("cloudflare-origin-ca-key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", "gitleaks:cloudflare.go"),
    Shape("databricks-api-token", r"dapi[a-f0-9]{32}(?:-\d)?" + _END, "gitleaks:databricks.go"),
    Shape("defined-networking-api-token", r"dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}", "gitleaks:definednetworking.go"),
    Shape("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}" + _END, "gitleaks:digitalocean.go"),
    Shape("discord-bot-token", r"[A-Za-z0-9]{0,2}[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}", "detect-secrets:discord.py"),
    Shape("doppler-api-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}", "gitleaks:doppler.go"),
    Shape("duffel-api-token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}", "gitleaks:duffel.go"),
    Shape("dynatrace-api-token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", "gitleaks:dynatrace.go"),
    Shape("easypost-api-token", r"EZ[AT]K[A-Za-z0-9]{54}" + _END, "gitleaks:easypost.go"),
    Shape("facebook-access-token", r"\d{15,16}[|%][0-9a-zA-Z_-]{27,40}" + _END, "gitleaks:facebook.go"),
    Shape("facebook-page-access-token", r"EAA[MC][A-Za-z0-9]{100,400}", "gitleaks:facebook.go"),
    Shape("flutterwave-key", r"FLW(?:PUBK|SECK)_TEST-[A-Ha-h0-9]{32}-X|FLWSECK_TEST[A-Ha-h0-9]{12}", "gitleaks:flutterwave.go"),
    Shape("flyio-access-token", r"fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,2000}={0,3}", "gitleaks:flyio.go"),
    Shape("frameio-api-token", r"fio-u-[A-Za-z0-9_=-]{64}", "gitleaks:frameio.go"),
    Shape("gcp-api-key", r"AIza[A-Za-z0-9_-]{35}" + r"(?![A-Za-z0-9_-])", "gitleaks:gcp.go"),
    Shape("github-token", r"gh[pousr]_[A-Za-z0-9]{30,255}" + _END, "gitleaks:github.go, detect-secrets:github_token.py"),
    Shape("github-fine-grained-pat", r"github_pat_[A-Za-z0-9_]{22,255}", "gitleaks:github.go"),
    Shape("gitlab-token", r"gl(?:pat|cbt|dt|ffct|ft|imt|agent|oas|ptt|rt|soat)-[A-Za-z0-9_.-]{20,300}", "gitleaks:gitlab.go, detect-secrets:gitlab_token.py"),
    Shape("gitlab-runner-registration-token", r"GR1348941[A-Za-z0-9_-]{20,80}", "gitleaks:gitlab.go, detect-secrets:gitlab_token.py"),
    Shape("grafana-api-key", r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}", "gitleaks:grafana.go"),
    Shape("grafana-token", r"glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", "gitleaks:grafana.go"),
    Shape("harness-api-key", r"pat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}|sat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}", "gitleaks:harness.go"),
    Shape("hashicorp-tf-api-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", "gitleaks:hashicorp.go"),
    Shape("vault-token", r"hvs\.[A-Za-z0-9_-]{90,120}|hvb\.[A-Za-z0-9_-]{90,300}|s\.(?=[A-Za-z]*[0-9])[A-Za-z0-9]{24}" + _END, "gitleaks:hashicorp_vault.go"),
    Shape("heroku-api-key-v2", r"HRKU-AA[0-9A-Za-z_-]{58}", "gitleaks:heroku.go"),
    Shape("huggingface-token", r"hf_[A-Za-z]{34}" + _END + r"|api_org_[A-Za-z]{34}" + _END, "gitleaks:huggingface.go"),
    Shape("infracost-api-token", r"ico-[A-Za-z0-9]{32}" + _END, "gitleaks:infracost.go"),
    Shape("intra42-client-secret", r"s-s4t2(?:ud|af)-[a-fA-F0-9]{64}", "gitleaks:intra42.go"),
    Shape("jwt", r"eyJ[A-Za-z0-9_-]{7,1500}\.[A-Za-z0-9_-]{10,2000}(?:\.[A-Za-z0-9_-]{0,1500}={0,2})?", "gitleaks:jwt.go, detect-secrets:jwt.py"),
    Shape("jwt-base64", r"ZXlK[A-Za-z0-9+/]{40,2000}={0,2}", "gitleaks:jwt.go"),
    Shape("linear-api-key", r"lin_api_[A-Za-z0-9]{40}" + _END, "gitleaks:linear.go"),
    Shape("lob-api-key", r"live_(?:pub_)?[a-f0-9]{31,35}" + _END + r"|test_(?:pub_)?[a-f0-9]{31,35}" + _END, "gitleaks:lob.go"),
    Shape("mailchimp-api-key", r"[0-9a-f]{32}-us\d{1,2}" + _END, "gitleaks:mailchimp.go, detect-secrets:mailchimp.py"),
    Shape("mailgun-key", r"key-[a-f0-9]{32}" + _END + r"|pubkey-[a-f0-9]{32}" + _END, "gitleaks:mailgun.go"),
    Shape("mapbox-token", r"pk\.eyJ[A-Za-z0-9_-]{20,200}\.[A-Za-z0-9_-]{20,100}|sk\.eyJ[A-Za-z0-9_-]{20,200}\.[A-Za-z0-9_-]{20,100}|pk\.[a-z0-9]{60}\.[a-z0-9]{22}", "gitleaks:mapbox.go"),
    Shape("maxmind-license-key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk", "gitleaks:maxmind.go"),
    Shape("new-relic-key", r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}" + _END, "gitleaks:newrelic.go"),
    Shape("notion-api-token", r"ntn_[0-9]{11}[A-Za-z0-9]{35}" + _END, "gitleaks:notion.go"),
    Shape("npm-access-token", r"npm_[A-Za-z0-9]{36}" + _END, "gitleaks:npm.go"),
    Shape("octopus-deploy-api-key", r"API-[A-Z0-9]{26}" + _END, "gitleaks:octopusdeploy.go"),
    Shape("openai-api-key", r"sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]{0,200}[0-9])[A-Za-z0-9_-]{20,300}", "gitleaks:openai.go, detect-secrets:openai.py"),
    Shape("openshift-user-token", r"sha256~[A-Za-z0-9_-]{43}", "gitleaks:openshift.go"),
    Shape("perplexity-api-key", r"pplx-[A-Za-z0-9]{48}" + _END, "gitleaks:perplexity.go"),
    Shape("plaid-access-token", r"access-(?:sandbox|development|production)-" + _UUID, "gitleaks:plaid.go"),
    Shape("planetscale-token", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.-]{32,64}", "gitleaks:planetscale.go"),
    Shape("postman-api-token", r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}", "gitleaks:postman.go"),
    Shape("prefect-api-token", r"pnu_[A-Za-z0-9]{36}" + _END, "gitleaks:prefect.go"),
    Shape("pulumi-api-token", r"pul-[a-f0-9]{40}" + _END, "gitleaks:pulumi.go"),
    Shape("pypi-upload-token", r"pypi-AgE[A-Za-z0-9_-]{50,1000}", "gitleaks:pypi.go, detect-secrets:pypi_token.py"),
    Shape("readme-api-token", r"rdme_[a-z0-9]{70}" + _END, "gitleaks:readme.go"),
    Shape("rubygems-api-token", r"rubygems_[a-f0-9]{48}" + _END, "gitleaks:rubygems.go"),
    Shape("scalingo-api-token", r"tk-us-[A-Za-z0-9_-]{48}", "gitleaks:scalingo.go"),
    Shape("sendgrid-api-token", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}|SG\.[A-Za-z0-9=_-]{66}", "gitleaks:sendgrid.go, detect-secrets:sendgrid.py"),
    Shape("sendinblue-api-token", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "gitleaks:sendinblue.go"),
    Shape("sentry-token", r"sntrys_eyJ[A-Za-z0-9+/=_]{40,600}|sntryu_[a-f0-9]{64}", "gitleaks:sentry.go"),
    Shape("settlemint-token", r"sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}" + _END, "gitleaks:settlemint.go"),
    Shape("shippo-api-token", r"shippo_(?:live|test)_[a-fA-F0-9]{40}", "gitleaks:shippo.go"),
    Shape("shopify-token", r"shp(?:ss|at|ca|pa)_[a-fA-F0-9]{32}", "gitleaks:shopify.go"),
    Shape("slack-token", r"xox[abeoprs]-(?:[0-9]{1,13}-){1,4}[A-Za-z0-9]{8,64}(?:-[A-Za-z0-9]{1,64}){0,4}|xox[ar]-(?:[0-9]-)?[0-9A-Za-z]{8,48}" + _END + r"|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+|xoxe\.xox[bp]-\d-[A-Za-z0-9]{160,170}", "gitleaks:slack.go, detect-secrets:slack.py"),
    Shape("sonar-token", r"sq[upa]_[a-f0-9]{40}" + _END, "gitleaks:sonar.go"),
    Shape("sourcegraph-token", r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}" + _END, "gitleaks:sourcegraph.go"),
    Shape("square-token", r"EAAA[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22,60}|sq0csp-[A-Za-z0-9_\\-]{43}", "gitleaks:square.go, detect-secrets:square_oauth.py"),
    Shape("stripe-key", r"sk_(?:test|live|prod)_[A-Za-z0-9]{10,99}" + _END + r"|rk_(?:test|live|prod)_[A-Za-z0-9]{10,99}" + _END, "gitleaks:stripe.go, detect-secrets:stripe.py"),
    Shape("twilio-key", r"SK[0-9a-fA-F]{32}" + _END + r"|AC[0-9a-fA-F]{32}" + _END, "gitleaks:twilio.go, detect-secrets:twilio.py"),
    Shape("typeform-api-token", r"tfp_[A-Za-z0-9_.=-]{59}", "gitleaks:typeform.go"),
    Shape("yandex-key", r"AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}" + _END + r"|t1\.[A-Za-z0-9_-]{1,100}={0,2}\.[A-Za-z0-9_-]{86}={0,2}", "gitleaks:yandex.go"),
)

# Secrets found by what surrounds them: (id, the literal that must be in the text, the
# pattern with the secret in group `s`, source). Each runs only where its literal is.
ANCHORED: tuple[tuple[str, bytes, str, str], ...] = (
    ("azure-storage-account-key", b"AccountKey=", r"AccountKey=(?P<s>[A-Za-z0-9+/]{86}==)", "detect-secrets:azure_storage_key.py"),
    ("discord-webhook", b"/api/webhooks/", r"discord(?:app)?\.com/api/webhooks/(?P<s>\d{17,20}/[A-Za-z0-9_-]{60,100})", "issue 34 (a Discord webhook URL: its id and token)"),
    ("sidekiq-secret", b"__contribsys__com", r"(?i:bundle_(?:enterprise|gems)__contribsys__com)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<s>[a-fA-F0-9]{8}:[a-fA-F0-9]{8})", "gitleaks:sidekiq.go"),
    ("gitlab-session-cookie", b"_gitlab_session=", r"_gitlab_session=(?P<s>[0-9a-z]{32})", "gitleaks:gitlab.go"),
    ("slack-webhook", b"hooks.slack.com/", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{20,200})", "gitleaks:slack.go, detect-secrets:slack.py"),
    ("softlayer-api-key", b"api.softlayer.com/", r"api\.softlayer\.com/soap/v3(?:\.1)?/(?P<s>[a-z0-9]{64})", "detect-secrets:softlayer.py"),
    ("telegram-bot-token", b":A", r":A(?<=[0-9]{5}:A)(?P<s>[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])", "gitleaks:telegram.go, detect-secrets:telegram_token.py"),
    ("teams-webhook", b".webhook.office.com/", r"\.webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@/-]{60,200})", "gitleaks:teams.go"),
)

# Token characters (`_RUN`): a token starts a run of them, right after any other
# character (a space, a quote, `=`, `:`, a bracket), and not after a letter, digit
# or one of `_-.+/~|%`. `_ANY` walks the text run by run in one call: a run of other
# characters, a short run (under MIN_RUN), or a long run that no shape starts, each
# taken whole and never read again; it stops at a long run a shape starts (group
# `tok`) or at the end. So no character is read by more than one attempt: linear in
# the text whatever it holds.
_RUN = r"A-Za-z0-9_.+/~|%-"
# Shapes whose body holds a character that may precede a token: not right after it
# either (else two attempts could read the same characters).
_ALSO_NOT_BEFORE = {"atlassian-api-token": "=", "aws-bedrock-short-lived": "=", "sentry-token": "="}


def _grouped(shapes: tuple[Shape, ...]) -> str:
    """The shapes as one alternation, those starting with the same literal character
    behind that character (the engine skips an alternative by its first character)."""
    by_first: dict[str, list[str]] = {}
    others: list[str] = []
    for shape in shapes:
        extra = _ALSO_NOT_BEFORE.get(shape.id, "")
        for alternative in _alternatives(shape.pattern):
            first = alternative[0]
            if first.isalnum():
                guard = f"(?<![{re.escape(extra)}]{re.escape(first)})" if extra else ""
                by_first.setdefault(first, []).append(guard + alternative[1:])
            else:
                others.append((f"(?<![{re.escape(extra)}])" if extra else "") + alternative)
    parts = [f"{first}(?:{'|'.join(rests)})" if len(rests) > 1 else first + rests[0] for first, rests in sorted(by_first.items())]
    return "|".join(parts + others)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern`."""
    out, depth, start, in_class, i = [], 0, 0, False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    return out + [pattern[start:]]


_SHAPE = "(?:" + _grouped(SHAPES) + ")"
_ANY = re.compile(
    (
        rf"(?:[^{_RUN}]*+(?:[{_RUN}]{{1,{MIN_RUN - 1}}}+(?![{_RUN}])|(?!{_SHAPE})[{_RUN}]++))*+"
        rf"[^{_RUN}]*+(?:(?P<tok>{_SHAPE})|\Z)"
    ).encode()
)
_ANCHORED = tuple((anchor, re.compile(pattern.encode())) for _, anchor, pattern, _ in ANCHORED)


def token_spans(data: bytes, lowered: bytes, budget: Budget) -> list[tuple[int, int]]:
    """(start, end) of every token with a known shape in `data`, and of every secret
    found by what surrounds it (`ANCHORED`)."""
    found = (match for match in _ANY.finditer(data) if match.start("tok") >= 0)
    spans = [match.span("tok") for match in budget.matches(found, lambda match: match.start("tok")) if not _filler(match["tok"])]
    for anchor, pattern in _ANCHORED:
        text = lowered if anchor.islower() else data
        spans += (match.span("s") for match in budget.matches(pattern.finditer(text)))
    return spans


def _filler(token: bytes) -> bool:
    """A documentation placeholder with a token's prefix (`glptt-xxxxxxxx...`)."""
    return _FILLER.search(token) is not None


_FILLER = re.compile(rb"x{8}|X{8}|\*{4}|0{12}")


def has_shape(data: bytes) -> bool:
    """Whether `data` holds a token with a known shape."""
    return any(match.start("tok") >= 0 and not _filler(match["tok"]) for match in _ANY.finditer(data))
