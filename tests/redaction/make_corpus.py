"""Regenerate the labelled redaction corpus (deterministic).

    python tests/redaction/make_corpus.py

Writes ``corpus_positive.jsonl`` (fake secrets in realistic trace text, each
labelled with its class and the exact secret substrings), ``corpus_negative.jsonl``
(text a naive redactor would hit but which must stay unchanged) and
``corpus_personal.jsonl`` (opt-in personal data).  Every secret is synthetic:
random-looking strings in the vendor's real format from a seeded RNG.  Secret
scanners may still flag these files; that is expected.
"""

from __future__ import annotations

import base64
import json
import random
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import (
    B62,
    B64,
    B64URL,
    DIGITS,
    HEX,
    LOWER,
    MAKERS,
    NEGATIVE,
    PERSONAL,
    POSITIVE,
    UPPER,
    mixed,
    openssh_block,
    password,
    pem_block,
    rs,
    symbol_password,
    url_password,
    uuid4,
)

SEED = 20250314

# ---------------------------------------------------------------------------
# Encodings: how a raw snippet reaches the redactor
# ---------------------------------------------------------------------------


def enc_raw(text: str) -> str:
    return text


def enc_json(text: str) -> str:
    """Tool-call arguments serialised once: {"command": "..."}."""
    return json.dumps({"command": text})


def enc_json2(text: str) -> str:
    """Arguments string inside a serialised message (escaped twice)."""
    return json.dumps({"type": "tool_use", "arguments": json.dumps({"command": text})})


def enc_result(text: str) -> str:
    """A tool result object serialised once."""
    return json.dumps({"stdout": text, "stderr": "", "exit_code": 0})


def enc_go(text: str) -> str:
    """A tool result serialised by Go's encoding/json: <, > and & as \\u003c..."""
    out = json.dumps({"output": text})
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


ENCODINGS: dict[str, Callable[[str], str]] = {
    "raw": enc_raw, "json": enc_json, "json2": enc_json2, "result": enc_result, "go": enc_go,
}


def appearing(secret: str, text: str) -> str:
    """The form of ``secret`` that literally appears in ``text``."""
    cur = secret
    for _ in range(3):
        if cur in text:
            return cur
        cur = json.dumps(cur)[1:-1]
    raise AssertionError(f"secret {secret[:12]!r} not found in text")


# ---------------------------------------------------------------------------
# Generic templates for prefixed vendor tokens
# ---------------------------------------------------------------------------

ENV_NAMES = {
    "aws-access-key-id": "AWS_ACCESS_KEY_ID",
    "aws-session-token": "AWS_SESSION_TOKEN",
    "gcp-api-key": "GOOGLE_API_KEY",
    "gcp-oauth-token": "GOOGLE_OAUTH_ACCESS_TOKEN",
    "gcp-refresh-token": "GOOGLE_REFRESH_TOKEN",
    "gcp-client-secret": "GOOGLE_CLIENT_SECRET",
    "azure-client-secret": "AZURE_CLIENT_SECRET",
    "github-token": "GITHUB_TOKEN",
    "github-fine-grained-token": "GH_TOKEN",
    "gitlab-token": "GITLAB_TOKEN",
    "openai-api-key": "OPENAI_API_KEY",
    "anthropic-api-key": "ANTHROPIC_API_KEY",
    "openrouter-api-key": "OPENROUTER_API_KEY",
    "huggingface-token": "HF_TOKEN",
    "groq-api-key": "GROQ_API_KEY",
    "replicate-api-token": "REPLICATE_API_TOKEN",
    "perplexity-api-key": "PERPLEXITY_API_KEY",
    "xai-api-key": "XAI_API_KEY",
    "langsmith-api-key": "LANGSMITH_API_KEY",
    "tavily-api-key": "TAVILY_API_KEY",
    "stripe-secret-key": "STRIPE_SECRET_KEY",
    "stripe-webhook-secret": "STRIPE_WEBHOOK_SECRET",
    "slack-token": "SLACK_BOT_TOKEN",
    "slack-webhook": "SLACK_WEBHOOK_URL",
    "discord-bot-token": "DISCORD_TOKEN",
    "discord-webhook": "DISCORD_WEBHOOK_URL",
    "teams-webhook": "TEAMS_WEBHOOK_URL",
    "telegram-bot-token": "TELEGRAM_BOT_TOKEN",
    "npm-token": "NPM_TOKEN",
    "pypi-token": "TWINE_PASSWORD",
    "dockerhub-token": "DOCKERHUB_TOKEN",
    "sendgrid-api-key": "SENDGRID_API_KEY",
    "digitalocean-token": "DIGITALOCEAN_TOKEN",
    "vault-token": "VAULT_TOKEN",
    "databricks-token": "DATABRICKS_TOKEN",
    "shopify-token": "SHOPIFY_ACCESS_TOKEN",
    "linear-api-key": "LINEAR_API_KEY",
    "jwt": "ID_TOKEN",
    "age-secret-key": "SOPS_AGE_KEY",
    "atlassian-api-token": "JIRA_API_TOKEN",
    "fireworks-api-key": "FIREWORKS_API_KEY",
    "grafana-token": "GRAFANA_SERVICE_ACCOUNT_TOKEN",
    "new-relic-key": "NEW_RELIC_API_KEY",
    "notion-token": "NOTION_TOKEN",
    "nvidia-api-key": "NVIDIA_API_KEY",
    "pinecone-api-key": "PINECONE_API_KEY",
    "postman-api-key": "POSTMAN_API_KEY",
    "rubygems-token": "GEM_HOST_API_KEY",
    "sentry-token": "SENTRY_AUTH_TOKEN",
    "supabase-token": "SUPABASE_ACCESS_TOKEN",
}

VENDOR_TEMPLATES: list[tuple[str, str, str]] = [
    # (context, encoding, template) -- {s} secret, {env} env var name
    ("shell", "raw", "$ export {env}={s}\n$ python scripts/run_eval.py --limit 20\nloaded 20 tasks"),
    ("shell", "json", "export {env}='{s}' && uv run pytest -q tests/integration"),
    ("env-dump", "result", "HOME=/home/agent\nLANG=C.UTF-8\n{env}={s}\nPATH=/usr/local/bin:/usr/bin"),
    ("dotenv", "raw", "$ cat .env\nNODE_ENV=production\n{env}=\"{s}\"\nPORT=3000\n"),
    ("yaml", "raw", ("services:\n  worker:\n    image: acme/worker:1.4\n    environment:\n"
                    "      {env}: {s}\n      LOG_LEVEL: info\n")),
    ("json-config", "raw", ('{{\n  "mcpServers": {{\n    "tools": {{\n      "command": "npx",\n'
                           '      "env": {{ "{env}": "{s}" }}\n    }}\n  }}\n}}')),
    ("log", "raw", ("2025-03-14T10:22:31.118Z DEBUG http.client: retrying with credential {s} "
                   "(attempt 2/5)")),
    ("python", "json2", "import os\nclient = Client(base_url=BASE, key=\"{s}\")\nprint(client.ping())"),
    ("log", "result", ("Traceback (most recent call last):\n  File \"app.py\", line 12\n"
                      "AuthError: credential {s} was rejected (401)")),
    ("markdown", "raw", ("I found the credential in `config/settings.local.py`:\n\n```\n{s}\n```\n"
                        "It should be rotated.")),
]

BARE_VENDOR = [
    "aws-access-key-id", "aws-session-token", "gcp-api-key", "gcp-oauth-token",
    "gcp-refresh-token", "gcp-client-secret", "azure-client-secret", "github-token",
    "github-fine-grained-token", "gitlab-token", "openai-api-key", "anthropic-api-key",
    "openrouter-api-key", "huggingface-token", "groq-api-key", "replicate-api-token",
    "perplexity-api-key", "xai-api-key", "langsmith-api-key", "tavily-api-key",
    "stripe-secret-key", "stripe-webhook-secret", "slack-token", "slack-webhook",
    "discord-bot-token", "discord-webhook", "teams-webhook", "telegram-bot-token", "npm-token",
    "pypi-token", "dockerhub-token", "sendgrid-api-key", "digitalocean-token", "vault-token",
    "databricks-token", "shopify-token", "linear-api-key", "jwt", "age-secret-key",
    "atlassian-api-token", "fireworks-api-key", "grafana-token", "new-relic-key", "notion-token",
    "nvidia-api-key", "pinecone-api-key", "postman-api-key", "rubygems-token", "sentry-token",
    "supabase-token",
]


# ---------------------------------------------------------------------------
# Class-specific positives
# ---------------------------------------------------------------------------

def labelled(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> dict:
    """One corpus case: ``raw`` in encoding ``enc``, each labelled secret as it appears there."""
    text = ENCODINGS[enc](raw)
    return {
        "context": ctx, "encoding": enc, "text": text,
        "labels": [{"class": c, "secret": appearing(s, text)} for c, s in labels],
    }


def specific_cases(rng: random.Random) -> list[dict]:
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS

    # --- AWS ---
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("ini", "raw", f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {kid}\n"
                      f"aws_secret_access_key = {sec}\nregion = eu-west-1\n",
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    kid, sec, tok = "ASIA" + mixed(rng, UPPER + "234567", 16), M["aws-secret-access-key"](rng), \
        M["aws-session-token"](rng)
    add("tool-output", "result", json.dumps({"Credentials": {
        "AccessKeyId": kid, "SecretAccessKey": sec, "SessionToken": tok,
        "Expiration": "2025-03-14T22:10:00+00:00"}}, indent=4),
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec), ("aws-session-token", tok)])
    sec = M["aws-secret-access-key"](rng)
    add("shell", "json", f"AWS_SECRET_ACCESS_KEY={sec} aws s3 ls s3://acme-artifacts/",
        [("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("yaml", "raw", f"provider:\n  aws:\n    secret_access_key: \"{sec}\"\n    region: us-east-1",
        [("aws-secret-access-key", sec)])
    tok = M["aws-session-token"](rng)
    add("shell", "raw", f"aws configure set aws_session_token {tok}", [("aws-session-token", tok)])
    tok = M["aws-session-token"](rng)
    q = urllib.parse.quote(tok, safe="")
    add("url", "raw", "GET https://acme.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                      f"&X-Amz-Security-Token={q}&X-Amz-Expires=300 200 OK",
        [("aws-session-token", q)])

    # --- GCP ---
    pem = pem_block(rng, "PRIVATE KEY", lines=16)
    kid = rs(rng, HEX, 40)
    sa = json.dumps({
        "type": "service_account", "project_id": "acme-prod", "private_key_id": kid,
        "private_key": pem + "\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com",
        "client_id": rs(rng, DIGITS, 21), "token_uri": "https://oauth2.googleapis.com/token"},
        indent=2)
    add("json-config", "raw", f"$ cat sa.json\n{sa}", [("private-key", kid), ("private-key", pem)])
    pem = pem_block(rng, "PRIVATE KEY", lines=10)
    sa = json.dumps({"type": "service_account", "private_key": pem + "\n"})
    add("json-config", "json", f"echo '{sa}' > /tmp/sa.json", [("private-key", pem)])
    tok = M["gcp-oauth-token"](rng)
    add("shell", "raw", f"$ gcloud auth print-access-token\n{tok}\n$ curl -H \"Authorization: "
                        "Bearer $(gcloud auth print-access-token)\" https://x.googleapis.com",
        [("gcp-oauth-token", tok)])
    cs = M["gcp-client-secret"](rng)
    add("json-config", "raw", json.dumps({"installed": {
        "client_id": rs(rng, DIGITS, 12) + "-" + rs(rng, LOWER + DIGITS, 32)
        + ".apps.googleusercontent.com", "client_secret": cs,
        "redirect_uris": ["http://localhost"]}}), [("gcp-client-secret", cs)])

    # --- Azure ---
    k = M["azure-storage-key"](rng)
    add("env-dump", "raw", "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;"
                           f"AccountName=acmelogs;AccountKey={k};EndpointSuffix=core.windows.net",
        [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("shell", "json", f"az storage blob upload --account-name acmelogs --account-key {k} "
                         "-f out.tar -c builds -n out.tar",
        [("azure-storage-key", k)])
    sig = M["azure-sas-signature"](rng)
    add("url", "result", "Uploading to https://acmelogs.blob.core.windows.net/builds/out.tar?"
                         "sv=2022-11-02&ss=b&srt=co&sp=rwac&se=2025-04-01T00:00:00Z&st=2025-03-14T"
                         f"00:00:00Z&spr=https&sig={sig} ... done",
        [("azure-sas-signature", sig)])
    sig = M["azure-sas-signature"](rng)
    add("json-config", "raw", json.dumps({"uploadUrl": "https://acmelogs.blob.core.windows.net/c/x"
                                          f"?sv=2022-11-02&sr=b&sp=w&sig={sig}"}),
        [("azure-sas-signature", sig)])
    k = M["azure-shared-access-key"](rng)
    add("dotenv", "raw", "SERVICEBUS_CONNECTION=Endpoint=sb://acme.servicebus.windows.net/;"
                         f"SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={k}",
        [("azure-shared-access-key", k)])
    k = M["azure-shared-access-key"](rng)
    add("json-config", "json", json.dumps({"ConnectionStrings": {
        "Bus": f"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={k}"}}),
        [("azure-shared-access-key", k)])
    cs = M["azure-client-secret"](rng)
    add("shell", "raw", f"az login --service-principal -u {uuid4(rng)} -p '{cs}' --tenant {uuid4(rng)}",
        [("azure-client-secret", cs)])

    # --- private keys ---
    pem = pem_block(rng, "RSA PRIVATE KEY", lines=14)
    add("tool-output", "raw", f"$ cat ~/.ssh/deploy_rsa\n{pem}\n$ chmod 600 ~/.ssh/deploy_rsa",
        [("private-key", pem)])
    key = openssh_block(rng)
    add("tool-output", "result", f"{key}\n", [("private-key", key)])
    key = openssh_block(rng)
    add("tool-output", "json2", f"cat > ~/.ssh/id_ed25519 <<'EOF'\n{key}\nEOF", [("private-key", key)])
    pem = pem_block(rng, "EC PRIVATE KEY", lines=4)
    add("yaml", "raw", "tls:\n  key: |\n    " + pem.replace("\n", "\n    ") + "\n  cert: cert.pem",
        [("private-key", pem.replace("\n", "\n    "))])
    pem = pem_block(rng, "ENCRYPTED PRIVATE KEY", lines=8)
    head = pem.split("\n")
    partial = "\n".join(head[:5])
    add("tool-output", "raw", f"$ head -5 server.key\n{partial}\n$ ", [("private-key", partial)])
    pgp = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGX" + mixed(rng, B64, 57) + "\n"
           + "\n".join(mixed(rng, B64, 64) for _ in range(6)) + "\n=" + mixed(rng, B64, 4)
           + "\n-----END PGP PRIVATE KEY BLOCK-----")
    add("tool-output", "result", f"$ gpg --export-secret-keys --armor ci@acme.dev\n{pgp}",
        [("private-key", pgp)])
    ossh = openssh_block(rng, nl="\\n")
    add("json-config", "raw", f'{{"deploy_key": "{ossh}"}}', [("private-key", ossh)])

    # --- URL passwords ---
    for tmpl, enc in [
        ("DATABASE_URL=postgres://app_user:{p}@db.internal:5432/app", "raw"),
        ("mongosh \"mongodb+srv://admin:{p}@cluster0.ab12c.mongodb.net/prod?retryWrites=true\"", "json"),
        ("redis-cli -u redis://:{p}@cache.internal:6379/0 PING", "raw"),
        ("git remote set-url origin https://deploy:{p}@git.acme.dev/platform/api.git", "json2"),
        ("amqp://guest_ci:{p}@rabbitmq:5672/%2F", "result"),
        ("sqlalchemy.url = mysql+pymysql://etl:{p}@10.0.3.7/warehouse?charset=utf8mb4", "raw"),
    ]:
        p = password(rng)
        add("url", enc, tmpl.format(p=p), [("url-password", p)])
    p = password(rng)
    enc_url = urllib.parse.quote(f"https://svc:{p}@internal.acme.dev/hook", safe="")
    add("url", "raw", f"GET /login?next={enc_url}&lang=en HTTP/1.1",
        [("url-password", urllib.parse.quote(p, safe=""))])
    tok = MAKERS["github-token"](rng)
    add("url", "raw", f"git clone https://x-access-token:{tok}@github.com/acme/infra.git",
        [("github-token", tok)])

    # --- passwords in many forms ---
    pw_forms = [
        ("dotenv", "raw", "POSTGRES_USER=app\nPOSTGRES_PASSWORD={p}\nPOSTGRES_DB=app"),
        ("yaml", "raw", "database:\n  host: db\n  user: app\n  password: {p}\n  pool: 5"),
        ("yaml", "raw", "spring:\n  datasource:\n    password: \"{p}\"\n"),
        ("json-config", "raw", '{{"username": "svc-ci", "password": "{p}", "remember": true}}'),
        ("json-config", "json", '{{"username": "svc-ci", "password": "{p}"}}'),
        ("json-config", "json2", '{{"db": {{"password": "{p}"}}}}'),
        ("ini", "raw", "[client]\nuser = backup\npassword = {p}\nhost = 127.0.0.1"),
        ("cli", "raw", "$ ./manage.py createsuperuser --username admin --password {p} --noinput"),
        ("cli", "json", "vault login -method=userpass username=ci password={p}"),
        ("cli", "raw", "mysql -h 10.0.0.5 -u root -p{p} -e 'SHOW DATABASES;'"),
        ("cli", "json", "mysqldump -uroot -p'{p}' --all-databases > dump.sql"),
        ("cli", "raw", "sshpass -p '{p}' ssh -o StrictHostKeyChecking=no deploy@10.0.0.9"),
        ("cli", "result", "+ PGPASSWORD={p} psql -h db -U app -c 'select 1'"),
        ("cli", "raw", "curl -sf -u admin:{p} https://jenkins.acme.dev/api/json"),
        ("sql", "raw", "CREATE USER 'reporter'@'%' IDENTIFIED BY '{p}';"),
        ("sql", "json", "ALTER ROLE app WITH LOGIN PASSWORD '{p}';"),
        ("k8s", "raw", "        env:\n        - name: DB_PASSWORD\n          value: \"{p}\"\n"),
        ("compose", "raw", "    environment:\n      MYSQL_ROOT_PASSWORD: {p}\n      MYSQL_DATABASE: app"),
        ("python", "raw", "conn = psycopg2.connect(host='db', user='app', password='{p}')"),
        ("python", "json", "settings.DATABASES['default']['PASSWORD'] = \"{p}\""),
        ("form", "raw", "POST /login body=username=bob&password={p}&remember=1"),
        ("url-encoded", "raw", "data=%7B%22user%22%3A%22bob%22%2C%22password%22%3A%22{p}%22%7D"),
        ("cli", "raw", "redis-cli -h cache -a {p} INFO"),
        ("netrc", "raw", "$ cat ~/.netrc\nmachine api.acme.dev\n  login ci-bot\n  password {p}\n"),
        ("netrc", "json", "machine git.acme.dev login deploy password {p}"),
        ("cli", "raw", "keytool -importkeystore -srckeystore a.p12 -srcstorepass {p} -destkeystore b.jks"),
        ("docker", "json", "docker login registry.acme.dev -u ci --password {p}"),
        ("log", "raw", "INFO connecting with user=app password={p} host=db"),
        ("toml", "raw", "[tool.poetry.http-basic.acme]\nusername = \"ci\"\npassword = \"{p}\""),
        ("php", "raw", "'password' => '{p}',"),
        ("go", "raw", "cfg := Config{{User: \"app\", Password: \"{p}\"}}"),
        ("ts", "raw", "const db = new Client({{ user: 'app', password: '{p}' }});"),
    ]
    for ctx, enc, tmpl in pw_forms:
        p = password(rng)
        add(ctx, enc, tmpl.format(p=p), [("password", p)])

    # --- generic secret / token / api-key / client-secret ---
    generic = [
        ("secret", "dotenv", "raw", "JWT_SECRET={s}\nJWT_TTL=3600"),
        ("secret", "python", "raw", "SECRET_KEY = \"{s}\"\nDEBUG = False"),
        ("secret", "yaml", "raw", "webhook:\n  secret: {s}\n"),
        ("secret", "json-config", "json", '{{"signing_secret": "{s}"}}'),
        ("token", "json-config", "result", ('{{"access_token": "{s}", "token_type": "bearer", '
                                           '"expires_in": 3599}}')),
        ("token", "npmrc", "raw", "//registry.acme.dev/npm/:_authToken={s}\nalways-auth=true"),
        ("token", "curl", "raw", "curl -H \"X-Auth-Token: {s}\" https://api.acme.dev/v2/servers"),
        ("token", "curl", "json", "curl --header \"PRIVATE-TOKEN: {s}\" https://gitlab.acme.dev/api/v4/projects"),
        ("token", "url", "raw", "GET /oauth/callback?code=abc&refresh_token={s}&state=xyz"),
        ("token", "cli", "raw", "$ ./deploy.sh --token {s} --env prod"),
        ("api-key", "dotenv", "raw", "COHERE_API_KEY={s}"),
        ("api-key", "curl", "raw", "curl https://api.acme.ai/v1/chat -H \"x-api-key: {s}\" -d @req.json"),
        ("api-key", "json-config", "json2", '{{"provider": "mistral", "apiKey": "{s}"}}'),
        ("api-key", "yaml", "raw", "llm:\n  api_key: {s}\n  model: large"),
        ("api-key", "url", "result", "GET https://maps.acme.io/geocode?q=berlin&api_key={s} 200"),
        ("api-key", "cli", "raw", "python eval.py --api-key={s} --model m1"),
        ("api-key", "curl", "json", "curl -H 'Ocp-Apim-Subscription-Key: {s}' https://acme.azure-api.net/x"),
        ("client-secret", "k8s", "raw", "apiVersion: v1\nkind: Secret\ndata:\n  client-secret: {s}\n"),
        ("client-secret", "form", "raw", "grant_type=client_credentials&client_id=web&client_secret={s}"),
        ("client-secret", "json-config", "raw", '{{"clientId": "web-app", "clientSecret": "{s}"}}'),
        ("client-secret", "dotenv", "json", "OIDC_CLIENT_SECRET={s}"),
    ]
    for cls, ctx, enc, tmpl in generic:
        s = MAKERS[cls](rng)
        # a Secret's data values are all the Secret's (base64, whatever the key says)
        add(ctx, enc, tmpl.format(s=s), [("kubernetes-secret" if ctx == "k8s" else cls, s)])

    # --- HTTP auth, cookies, sessions ---
    for tmpl, enc in [
        ("curl -s -H \"Authorization: Bearer {s}\" https://api.acme.dev/v1/me", "raw"),
        ("curl -s -H \"Authorization: Bearer {s}\" https://api.acme.dev/v1/me", "json"),
        ("> GET /v1/me HTTP/1.1\n> Host: api.acme.dev\n> authorization: bearer {s}\n> Accept: */*", "result"),
        ("headers = {{'Authorization': 'Bearer {s}', 'Accept': 'application/json'}}", "raw"),
        ("requests.get(url, headers={{\"Authorization\": \"Bearer {s}\"}})", "json2"),
    ]:
        s = MAKERS["bearer-token"](rng)
        add("http", enc, tmpl.format(s=s), [("bearer-token", s)])
    for enc in ("raw", "json"):
        s = MAKERS["basic-auth"](rng)
        add("http", enc, f"curl -H 'Authorization: Basic {s}' https://registry.acme.dev/v2/_catalog",
            [("basic-auth", s)])
    s = MAKERS["basic-auth"](rng)
    add("http", "raw", f"< HTTP/1.1 407\n> Proxy-Authorization: Basic {s}", [("basic-auth", s)])
    s = MAKERS["basic-auth"](rng)
    add("http", "result", f"DEBUG request headers: {{'Authorization': 'Basic {s}', 'User-Agent': "
                          "'python-requests/2.32'}", [("basic-auth", s)])
    s = MAKERS["jwt"](rng)
    add("http", "raw", f"curl -H \"Authorization: Bearer {s}\" https://api.acme.dev/v1/orders",
        [("jwt", s)])
    s = MAKERS["github-token"](rng)
    add("http", "json", f"curl -H \"Authorization: token {s}\" https://api.github.com/user",
        [("github-token", s)])
    for enc in ("raw", "result"):
        s = MAKERS["authorization"](rng)
        add("http", enc, f"curl -s -H 'Authorization: Token {s}' https://api.acme.dev/v1/projects",
            [("authorization", s)])
    for host in ("acme.s3.amazonaws.com", "storage.googleapis.com/acme"):
        s = MAKERS["url-signature"](rng)
        kind = "Amz" if "amazonaws" in host else "Goog"
        add("url", "raw", f"curl -o r.csv 'https://{host}/r.csv?X-{kind}-Algorithm=GOOG4-RSA-SHA256"
                          f"&X-{kind}-Expires=300&X-{kind}-Signature={s}'", [("url-signature", s)])
    for tmpl, enc in [
        ("> Cookie: {s}", "raw"),
        ("curl -H 'Cookie: {s}' https://app.acme.dev/dashboard", "json"),
        ("< set-cookie: {s}; Path=/; HttpOnly; Secure", "result"),
        ("curl -b '{s}' https://app.acme.dev/api/export", "raw"),
    ]:
        s = MAKERS["cookie"](rng)
        add("http", enc, tmpl.format(s=s), [("cookie", s)])
    for tmpl, enc in [
        ("GET /cart;jsessionid={s}?item=4 HTTP/1.1", "raw"),
        ("127.0.0.1 - - [14/Mar/2025] \"GET /index.php?PHPSESSID={s} HTTP/1.1\" 200", "result"),
        ("INFO request sessionid={s} user=42 path=/admin", "raw"),
        ("{{\"laravel_session\": \"{s}\"}}", "json"),
    ]:
        s = rs(rng, UPPER + DIGITS, 32) if "jsession" in tmpl else MAKERS["session-id"](rng)
        add("http", enc, tmpl.format(s=s), [("session-id", s)])

    # --- JWT, tokens in other places ---
    s = MAKERS["jwt"](rng)
    add("log", "raw", f"oauth callback ok id_token={s} expires_in=3600", [("jwt", s)])
    s = MAKERS["jwt"](rng)
    add("json-config", "result", json.dumps({"session": {"user": "ada", "jwt": s}}), [("jwt", s)])
    s = MAKERS["slack-webhook"](rng)
    add("shell", "raw", f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy ok\"}}' {s}",
        [("slack-webhook", s)])
    s = MAKERS["discord-bot-token"](rng)
    add("python", "raw", f"bot.run(\"{s}\")", [("discord-bot-token", s)])
    s = MAKERS["telegram-bot-token"](rng)
    add("url", "json", f"curl https://api.telegram.org/bot{s}/sendMessage -d chat_id=42 -d text=hi",
        [("telegram-bot-token", s)])
    s = MAKERS["npm-token"](rng)
    add("npmrc", "raw", f"//registry.npmjs.org/:_authToken={s}", [("npm-token", s)])
    s = MAKERS["pypi-token"](rng)
    add("ini", "raw", f"[pypi]\n  username = __token__\n  password = {s}", [("pypi-token", s)])
    s = MAKERS["huggingface-token"](rng)
    add("cli", "json", f"huggingface-cli login --token {s}", [("huggingface-token", s)])
    s = MAKERS["anthropic-api-key"](rng)
    add("curl", "json2", f"curl https://api.anthropic.com/v1/messages -H \"x-api-key: {s}\" "
                         "-H \"anthropic-version: 2023-06-01\"", [("anthropic-api-key", s)])
    s = MAKERS["openai-api-key"](rng)
    add("python", "raw", f"openai.api_key = \"{s}\"", [("openai-api-key", s)])
    s = MAKERS["stripe-secret-key"](rng)
    add("curl", "raw", f"curl https://api.stripe.com/v1/charges -u {s}: -d amount=2000",
        [("stripe-secret-key", s)])
    s = MAKERS["slack-token"](rng)
    add("curl", "result", f"curl -s -H 'Authorization: Bearer {s}' https://slack.com/api/auth.test",
        [("slack-token", s)])
    s = MAKERS["github-fine-grained-token"](rng)
    add("cli", "raw", f"echo {s} | gh auth login --with-token", [("github-fine-grained-token", s)])
    return cases


def vendor_cases(rng: random.Random) -> list[dict]:
    cases = []
    for i, cls in enumerate(BARE_VENDOR):
        # three templates per class, rotating through the pool
        for k in range(3):
            ctx, enc, tmpl = VENDOR_TEMPLATES[(i * 3 + k) % len(VENDOR_TEMPLATES)]
            s = MAKERS[cls](rng)
            text = ENCODINGS[enc](tmpl.format(env=ENV_NAMES[cls], s=s))
            cases.append({"context": ctx, "encoding": enc, "text": text,
                          "labels": [{"class": cls, "secret": appearing(s, text)}]})
    return cases


# ---------------------------------------------------------------------------
# Markup: config files an agent `cat`s (XML elements and name/value attributes)
# ---------------------------------------------------------------------------

MARKUP_SEED = SEED + 1  # own RNG: the cases above keep their bytes


def markup_cases(rng: random.Random) -> list[dict]:
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS
    # --- elements named by the key ---
    p = password(rng)
    add("maven", "raw", ("$ cat ~/.m2/settings.xml\n<settings>\n  <servers>\n    <server>\n"
                         "      <id>acme-releases</id>\n      <username>deploy</username>\n"
                         f"      <password>{p}</password>\n    </server>\n  </servers>\n</settings>"),
        [("password", p)])
    p = password(rng)
    add("xml", "result", f"<connection>\n  <Server>db01</Server>\n  <Password>{p}</Password>\n</connection>",
        [("password", p)])
    p = password(rng)
    add("xml", "json", f'<db:config xmlns:db="urn:acme:db">\n  <db:password>{p}</db:password>\n</db:config>',
        [("password", p)])
    s = M["token"](rng)
    add("xml", "go", f"<auth>\n  <user>ci</user>\n  <token>{s}</token>\n</auth>", [("token", s)])
    s = M["api-key"](rng)
    add("xml", "json2", f"<provider name=\"maps\">\n  <apiKey>{s}</apiKey>\n</provider>", [("api-key", s)])
    s = M["client-secret"](rng)
    add("xml", "raw", f"<oauth>\n  <client_id>web</client_id>\n  <client_secret>{s}</client_secret>\n</oauth>",
        [("client-secret", s)])
    s = M["secret"](rng)
    add("xml", "result", f"<webhook><url>https://hooks.acme.dev/in</url><secret>{s}</secret></webhook>",
        [("secret", s)])
    p = password(rng)
    add("xml", "raw", f"<datasource>\n  <password><![CDATA[{p}]]></password>\n</datasource>",
        [("password", p)])
    p = password(rng)
    add("xml", "go", f'<jdbc>\n  <password encrypted="false">{p}</password>\n</jdbc>', [("password", p)])
    p = password(rng)
    add("html", "raw", ("<pre><code>&lt;server&gt;\n  &lt;username&gt;ci&lt;/username&gt;\n"
                        f"  &lt;password&gt;{p}&lt;/password&gt;\n&lt;/server&gt;</code></pre>"),
        [("password", p)])
    kid, sec, tok = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng), M["aws-session-token"](rng)
    add("aws-xml", "result", ("<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
                              "  <AssumeRoleResult>\n    <Credentials>\n"
                              f"      <AccessKeyId>{kid}</AccessKeyId>\n"
                              f"      <SecretAccessKey>{sec}</SecretAccessKey>\n"
                              f"      <SessionToken>{tok}</SessionToken>\n"
                              "      <Expiration>2025-03-14T22:10:00Z</Expiration>\n"
                              "    </Credentials>\n  </AssumeRoleResult>\n</AssumeRoleResponse>"),
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec), ("aws-session-token", tok)])
    s = M["github-token"](rng)
    add("xml", "raw", f"<github>\n  <token>{s}</token>\n</github>", [("github-token", s)])
    # --- a name/key attribute and a value attribute on one tag ---
    s = M["api-key"](rng)
    add("dotnet", "raw", ("$ cat App.config\n<appSettings>\n  <add key=\"Region\" value=\"eu-west-1\" />\n"
                          f"  <add key=\"ApiKey\" value=\"{s}\" />\n</appSettings>"), [("api-key", s)])
    p = password(rng)
    add("spring", "json", ('<bean id="ds" class="org.acme.DataSource">\n'
                           '  <property name="username" value="app"/>\n'
                           f'  <property name="password" value="{p}"/>\n</bean>'), [("password", p)])
    s = M["client-secret"](rng)
    add("xml", "go", f"<params><param name='client_id' value='web'/><param name='client_secret' value='{s}'/></params>",
        [("client-secret", s)])
    p = password(rng)
    add("hibernate", "raw", f'<property value="{p}" name="hibernate.connection.password"/>', [("password", p)])
    p = password(rng)
    add("spring", "result", ('<property name="spring.datasource.password"\n'
                             f'          value="{p}"/>'), [("password", p)])
    k = "base64:" + base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()
    add("phpunit", "json2", f'<php>\n  <env name="APP_ENV" value="testing"/>\n  <env name="APP_KEY" value="{k}"/>\n</php>',
        [("api-key", k)])
    p = password(rng)
    add("dotnet", "raw", f"<add key='Smtp:Password' value='{p}' />", [("password", p)])
    p = password(rng)
    add("html", "result", ('<form method="post">\n  <input type="text" name="user" value="ada">\n'
                           f'  <input type="password" name="password" value="{p}">\n</form>'), [("password", p)])
    return cases


PAIRS_SEED = SEED + 2  # own RNG: the cases above keep their bytes


def name_value_cases(rng: random.Random) -> list[dict]:
    """Environment variables listed as name/value pairs, as `kubectl get -o json` and
    `aws ecs describe-task-definition` print them: the secret's name and its value are two fields."""
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    p = password(rng)
    add("ecs", "raw", f'"environment": [{{"name": "REGION", "value": "eu-west-1"}}, {{"name": "DB_PASSWORD", "value": "{p}"}}]',
        [("password", p)])
    h = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789+/") for _ in range(32))
    add("kubectl", "result", ('"env": [\n  {\n    "name": "WEBHOOK_SECRET",\n'
                              f'    "value": "{h}"\n  }}\n]'), [("secret", h)])
    k = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") for _ in range(28))
    add("ecs", "json", f'{{"name":"SERVICE_API_KEY","value":"{k}"}}', [("api-key", k)])
    p = password(rng)
    add("k8s-yaml", "raw", f"env:\n  - name: POSTGRES_PASSWORD\n    value: {p}", [("password", p)])
    return cases


# ---------------------------------------------------------------------------
# Secrets in the forms real traces hold them: env dumps, manifests, config and credential
# files, URLs, shell history, HTTP headers (#18).  Own RNG: the cases above keep their bytes.
# ---------------------------------------------------------------------------

TRACE_SEED = SEED + 3


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def trace_cases(rng: random.Random) -> list[dict]:
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS

    # --- AWS secret access keys in assignment forms ---
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("env-dump", "result", f"HOSTNAME=runner-7\nAWS_ACCESS_KEY_ID={kid}\nAWS_SECRET_ACCESS_KEY={sec}\n"
                              "AWS_DEFAULT_REGION=eu-west-1\nHOME=/root",
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("shell", "raw", f"$ aws configure set aws_secret_access_key {sec}\n$ aws configure set region us-east-1",
        [("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("config", "raw", f"$ cat ~/.s3cfg\n[default]\naccess_key = {kid}\nsecret_key = {sec}\n"
                         "host_base = s3.amazonaws.com\nuse_https = True",
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("terraform", "json", f'provider "aws" {{\n  region     = "us-east-1"\n  access_key = "{kid}"\n'
                             f'  secret_key = "{sec}"\n}}',
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("shell", "json", f"docker run --rm -e AWS_ACCESS_KEY_ID={kid} -e AWS_SECRET_ACCESS_KEY={sec} "
                         "amazon/aws-cli s3 ls s3://acme-builds",
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("manifest", "raw", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n"
                           f"      AWS_SECRET_ACCESS_KEY: {sec}\n      AWS_REGION: us-east-1",
        [("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("python", "json2", f'session = boto3.Session(aws_access_key_id="{kid}", '
                           f'aws_secret_access_key="{sec}")',
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("shell", "raw", f'PS C:\\> $env:AWS_SECRET_ACCESS_KEY = "{sec}"', [("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("env-dump", "result", json.dumps({"Config": {"Env": [
        "PATH=/usr/local/bin:/usr/bin", "AWS_REGION=eu-central-1", f"AWS_SECRET_ACCESS_KEY={sec}"]}}, indent=2),
        [("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("config", "raw", f"[s3remote]\ntype = s3\nprovider = AWS\naccess_key_id = {kid}\n"
                         f"secret_access_key = {sec}\nregion = eu-west-1",
        [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("config", "go", f"aws.accessKeyId=${{AWS_KEY}}\naws.secretKey={sec}\naws.region=us-west-2",
        [("aws-secret-access-key", sec)])

    # --- Azure storage account keys ---
    k = M["azure-storage-key"](rng)
    add("env-dump", "raw", f"AZURE_STORAGE_ACCOUNT=acmelogs\nAZURE_STORAGE_KEY={k}\nAZURE_CONTAINER=builds",
        [("azure-storage-key", k)])
    k1, k2 = M["azure-storage-key"](rng), M["azure-storage-key"](rng)
    add("shell", "result", "$ az storage account keys list -g rg-prod -n acmelogs\n" + json.dumps([
        {"creationTime": "2025-03-01T09:12:44.1203471+00:00", "keyName": "key1", "permissions": "FULL", "value": k1},
        {"creationTime": "2025-03-01T09:12:44.1203471+00:00", "keyName": "key2", "permissions": "FULL", "value": k2},
    ], indent=2), [("azure-storage-key", k1), ("azure-storage-key", k2)])
    k = M["azure-storage-key"](rng)
    add("shell", "raw", "$ az storage account keys list -g rg-prod -n acmelogs --query '[0].value' -o tsv\n"
                        f"{k}\n$ ", [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("terraform", "json", 'resource "azurerm_function_app" "api" {\n  storage_account_name       = "acmefn"\n'
                             f'  storage_account_access_key = "{k}"\n}}', [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("json-config", "raw", json.dumps({"AzureStorage": {"AccountName": "acmelogs", "AccountKey": k}}, indent=2),
        [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("python", "json", "from azure.storage.blob import BlobServiceClient\n"
                          "svc = BlobServiceClient(account_url='https://acmelogs.blob.core.windows.net', "
                          f"credential='{k}')", [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("manifest", "raw", "services:\n  app:\n    environment:\n      AZURE_STORAGE_CONNECTION_STRING: "
                           f"\"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={k};"
                           "EndpointSuffix=core.windows.net\"", [("azure-storage-key", k)])

    # --- credential files: .netrc, .pgpass, .git-credentials ---
    p = password(rng)
    add("netrc", "raw", f"$ cat ~/.netrc\nmachine ftp.acme.dev\n  password {p}\n  login mirror", [("password", p)])
    p = password(rng)
    add("netrc", "result", f"default login anonymous password {p}", [("password", p)])
    u1, u2 = uuid4(rng), uuid4(rng)
    add("netrc", "raw", f"$ cat ~/.netrc\nmachine api.heroku.com\n  login ada@acme.dev\n  password {u1}\n"
                        f"machine git.heroku.com\n  login ada@acme.dev\n  password {u2}\n",
        [("heroku-api-key", u1), ("heroku-api-key", u2)])
    p1, p2 = password(rng), password(rng)
    add("pgpass", "raw", f"$ cat ~/.pgpass\ndb.internal:5432:app:app_user:{p1}\n*:*:*:replicator:{p2}\n",
        [("password", p1), ("password", p2)])
    p = password(rng)
    add("pgpass", "json", f'echo "db.acme.dev:5432:analytics:etl:{p}" >> ~/.pgpass && chmod 600 ~/.pgpass',
        [("password", p)])
    p = password(rng)
    add("pgpass", "result", f"localhost:6432:*:pgbouncer:{p}\n", [("password", p)])
    tok, p = M["github-token"](rng), password(rng)
    add("git-credentials", "raw", f"$ cat ~/.git-credentials\nhttps://ada:{tok}@github.com\n"
                                  f"https://ci-bot:{p}@git.acme.dev\n",
        [("github-token", tok), ("url-password", p)])
    tok = M["github-token"](rng)
    add("git-credentials", "result", f"protocol=https\nhost=github.com\nusername=ada\npassword={tok}\n",
        [("github-token", tok)])
    tok = M["gitlab-token"](rng)
    add("git-credentials", "json", f"git clone https://oauth2:{tok}@gitlab.acme.dev/platform/api.git",
        [("gitlab-token", tok)])
    tok = M["github-token"](rng)
    add("git-credentials", "raw", f"git remote add origin https://{tok}:x-oauth-basic@github.com/acme/infra.git",
        [("github-token", tok)])

    # --- Datadog API and application keys ---
    d = M["datadog-api-key"](rng)
    add("env-dump", "raw", f"DD_API_KEY={d}\nDD_SITE=datadoghq.eu\nDD_ENV=prod\nDD_SERVICE=checkout",
        [("datadog-api-key", d)])
    d, a = M["datadog-api-key"](rng), M["datadog-app-key"](rng)
    add("http", "json", 'curl -X GET "https://api.datadoghq.com/api/v1/validate" -H "Accept: application/json" '
                        f'-H "DD-API-KEY: {d}" -H "DD-APPLICATION-KEY: {a}"',
        [("datadog-api-key", d), ("datadog-app-key", a)])
    d = M["datadog-api-key"](rng)
    add("config", "raw", "$ sudo cat /etc/datadog-agent/datadog.yaml\n## @param api_key - string - required\n"
                         f"api_key: {d}\nsite: datadoghq.com\nlogs_enabled: true", [("datadog-api-key", d)])
    d, a = M["datadog-api-key"](rng), M["datadog-app-key"](rng)
    add("manifest", "result", f"datadog:\n  apiKey: {d}\n  appKey: {a}\n  site: datadoghq.com\n  logs:\n    enabled: true",
        [("datadog-api-key", d), ("datadog-app-key", a)])
    d, a = M["datadog-api-key"](rng), M["datadog-app-key"](rng)
    add("terraform", "raw", f'provider "datadog" {{\n  api_key = "{d}"\n  app_key = "{a}"\n  api_url = '
                            '"https://api.datadoghq.eu/"\n}', [("datadog-api-key", d), ("datadog-app-key", a)])
    d = M["datadog-api-key"](rng)
    add("shell", "json", f"docker run -d --name dd-agent -e DD_API_KEY={d} -e DD_SITE=datadoghq.com "
                         "gcr.io/datadoghq/agent:7", [("datadog-api-key", d)])
    d, a = M["datadog-api-key"](rng), M["datadog-app-key"](rng)
    add("python", "json2", "from datadog_api_client import Configuration\nconfiguration = Configuration()\n"
                           f'configuration.api_key["apiKeyAuth"] = "{d}"\nconfiguration.api_key["appKeyAuth"] = "{a}"',
        [("datadog-api-key", d), ("datadog-app-key", a)])

    # --- Docker config.json auths (base64 of user:password) ---
    a1, a2 = b64(f"deploy:{password(rng)}"), b64(f"ada:{M['github-token'](rng)}")
    add("config", "raw", "$ cat ~/.docker/config.json\n" + json.dumps({"auths": {
        "https://index.docker.io/v1/": {"auth": a1}, "ghcr.io": {"auth": a2}}, "credsStore": ""}, indent=2),
        [("basic-auth", a1), ("basic-auth", a2)])
    a1 = b64(f"ci:{password(rng)}")
    add("config", "result", json.dumps({"auths": {"registry.acme.dev": {"auth": a1, "email": "ci@acme.dev"}}}),
        [("basic-auth", a1)])
    a1 = b64(f"gitlab-ci-token:{M['gitlab-token'](rng)}")
    add("config", "go", json.dumps({"auths": {"registry.gitlab.com": {"auth": a1}}}, separators=(",", ":")),
        [("basic-auth", a1)])
    a1 = b64(f"npm-ci:{password(rng)}")
    add("config", "raw", f"$ cat .npmrc\n//registry.acme.dev/npm/:_auth={a1}\n//registry.acme.dev/npm/:always-auth=true",
        [("basic-auth", a1)])

    # --- Doppler tokens ---
    t = M["doppler-token"](rng)
    add("env-dump", "raw", f"DOPPLER_PROJECT=api\nDOPPLER_CONFIG=prd\nDOPPLER_TOKEN={t}", [("doppler-token", t)])
    t = M["doppler-token"](rng)
    add("shell", "json", f"doppler configure set token {t} --scope /srv/api", [("doppler-token", t)])
    t = M["doppler-token"](rng)
    add("config", "raw", f"$ cat ~/.doppler/.doppler.yaml\nscoped:\n    /:\n        token: {t}\n"
                         "        api-host: https://api.doppler.com", [("doppler-token", t)])
    t = M["doppler-token"](rng)
    add("http", "result", "curl --request GET --url https://api.doppler.com/v3/me "
                          f"--header 'Authorization: Bearer {t}'", [("doppler-token", t)])

    # --- Heroku API keys ---
    u = uuid4(rng)
    add("env-dump", "raw", f"HEROKU_APP_NAME=acme-api\nHEROKU_API_KEY={u}", [("heroku-api-key", u)])
    u = uuid4(rng)
    add("shell", "raw", f"$ heroku auth:token\n \u203a   Warning: token will expire 04/14/2026\n{u}",
        [("heroku-api-key", u)])
    u = uuid4(rng)
    add("shell", "result", f"heroku auth:token\n{u}\n", [("heroku-api-key", u)])
    u = uuid4(rng)
    add("manifest", "raw", "      - uses: akhileshns/heroku-deploy@v3.13.15\n        with:\n"
                           f"          heroku_api_key: {u}\n          heroku_app_name: acme-api\n"
                           "          heroku_email: ops@acme.dev", [("heroku-api-key", u)])
    h = M["heroku-api-key"](rng)
    add("shell", "json", f"export HEROKU_API_KEY={h} && git push heroku main", [("heroku-api-key", h)])
    h = M["heroku-api-key"](rng)
    add("log", "result", f"2025-03-14T10:22:31Z app[web.1]: using token {h} for platform API", [("heroku-api-key", h)])

    # --- JWTs in various positions ---
    j = M["jwt"](rng)
    add("url", "raw", f"GET /callback#access_token={j}&token_type=Bearer&expires_in=3600", [("jwt", j)])
    j = M["jwt"](rng)
    add("config", "raw", "$ kubectl config view --raw\nusers:\n- name: ci\n  user:\n"
                         f"    token: {j}\n", [("jwt", j)])
    j = M["jwt"](rng)
    add("log", "result", f"WARN auth: token {j} is expired (exp=1741946400)", [("jwt", j)])
    j = M["jwt"](rng)
    add("python", "raw", f">>> r.headers\n{{'Authorization': 'JWT {j}'}}", [("jwt", j)])
    j = M["jwt"](rng)
    add("log", "raw", f"cache hit: /tmp/cache/session_{j}.json", [("jwt", j)])
    j = M["jwt"](rng)
    add("prose", "raw", f"The ID token was {j}.", [("jwt", j)])
    j = M["jwt"](rng)
    add("env-dump", "json", f"SUPABASE_URL=https://xyzcompany.supabase.co\nSUPABASE_ANON_KEY={j}", [("jwt", j)])
    j = M["jwt"](rng)
    add("http", "go", f"> GET /rest/v1/todos HTTP/1.1\n> apikey: {j}\n> Accept: */*", [("jwt", j)])
    j = M["jwt"](rng)
    add("python", "json", f"print(jwt.decode(b'{j}', options={{'verify_signature': False}}))", [("jwt", j)])
    j = M["jwt"](rng)
    add("url", "result", f"wss://realtime.acme.dev/socket?vsn=1.0.0&token={j}", [("jwt", j)])

    # --- Kubernetes Secret manifests (base64 data: values) ---
    v1, v2, v3 = b64(f"app_user_{rs(rng, LOWER, 4)}"), M["kubernetes-secret"](rng), \
        b64(f"postgres://app:{password(rng)}@db:5432/app")
    add("manifest", "raw", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\n  namespace: prod\n"
                           f"type: Opaque\ndata:\n  username: {v1}\n  password: {v2}\n  DATABASE_URL: {v3}\n",
        [("kubernetes-secret", v1), ("kubernetes-secret", v2), ("kubernetes-secret", v3)])
    v1, v2 = M["kubernetes-secret"](rng), b64(M["stripe-secret-key"](rng))
    add("manifest", "result", f"$ kubectl get secret api-keys -o yaml\napiVersion: v1\ndata:\n  api-token: {v1}\n"
                              f"  stripe.key: {v2}\nkind: Secret\nmetadata:\n  creationTimestamp: "
                              "\"2025-03-14T09:12:44Z\"\n  name: api-keys\n  namespace: prod\ntype: Opaque\n",
        [("kubernetes-secret", v1), ("kubernetes-secret", v2)])
    v1, v2 = M["kubernetes-secret"](rng), M["kubernetes-secret"](rng)
    add("manifest", "result", json.dumps({"apiVersion": "v1", "data": {"password": v1, "username": v2},
                                          "kind": "Secret", "metadata": {"name": "mysql", "namespace": "db"},
                                          "type": "Opaque"}, indent=4), [("kubernetes-secret", v1), ("kubernetes-secret", v2)])
    p1 = password(rng, 18)
    add("manifest", "raw", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\ntype: Opaque\nstringData:\n"
                           f"  SMTP_PASSWORD: \"{p1}\"\n", [("kubernetes-secret", p1)])
    crt, key = b64("-----BEGIN CERTIFICATE-----\nMIIC" + mixed(rng, B64, 60)), \
        b64("-----BEGIN PRIVATE KEY-----\nMIIE" + mixed(rng, B64, 60))
    add("manifest", "json", "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: web-tls\n"
                            f"data:\n  tls.crt: {crt}\n  tls.key: {key}\n",
        [("kubernetes-secret", crt), ("kubernetes-secret", key)])
    cfg = b64(json.dumps({"auths": {"ghcr.io": {"auth": b64(f"ci:{M['github-token'](rng)}")}}}))
    add("manifest", "raw", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\n"
                           f"data:\n  .dockerconfigjson: {cfg}\n", [("kubernetes-secret", cfg)])
    p1 = password(rng)
    add("shell", "raw", f"$ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{p1}\n$ ",
        [("kubernetes-secret", p1)])
    v1 = M["kubernetes-secret"](rng)
    add("manifest", "raw", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: info\n"
                           f"---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  TOKEN: {v1}\n",
        [("kubernetes-secret", v1)])
    key = b64("-----BEGIN RSA PRIVATE KEY-----\nMIIE" + mixed(rng, B64, 120) + "\n-----END RSA PRIVATE KEY-----\n")
    add("config", "raw", "$ cat ~/.kube/config\nusers:\n- name: admin\n  user:\n    client-certificate: "
                         f"/home/ci/.minikube/profiles/ci/client.crt\n    client-key-data: {key}\n",
        [("private-key", key)])

    # --- password assignments and passwords in URLs ---
    p = password(rng)
    add("php", "raw", f"$ grep DB_ wp-config.php\ndefine( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp' );\n"
                      f"define( 'DB_PASSWORD', '{p}' );\ndefine( 'DB_HOST', 'localhost' );", [("password", p)])
    p = password(rng)
    add("python", "json", f'os.environ.setdefault("DB_PASSWORD", "{p}")', [("password", p)])
    p = password(rng)
    add("java", "raw", f'System.setProperty("javax.net.ssl.keyStorePassword", "{p}");', [("password", p)])
    p = password(rng)
    add("shell", "raw", f'PS C:\\> $env:DB_PASSWORD = "{p}"', [("password", p)])
    p = password(rng)
    add("shell", "json", f'$secure = ConvertTo-SecureString "{p}" -AsPlainText -Force', [("password", p)])
    p = password(rng)
    add("shell", "raw", f'C:\\> setx DB_PASSWORD "{p}"\nSUCCESS: Specified value was saved.', [("password", p)])
    p = password(rng)
    add("shell", "result", f"openssl pkcs12 -in client.p12 -out client.pem -nodes -passin pass:{p}", [("password", p)])
    p = password(rng)
    add("shell", "raw", f"htpasswd -bc /etc/nginx/.htpasswd admin '{p}'", [("password", p)])
    p = password(rng)
    add("shell", "json", f"docker login -u ci -p {p} registry.acme.dev", [("password", p)])
    p = password(rng)
    add("shell", "raw", f"mongosh -u admin -p {p} --authenticationDatabase admin mongodb://db:27017", [("password", p)])
    p = password(rng)
    add("shell", "raw", f"sqlcmd -S db.acme.dev -U sa -P '{p}' -Q 'SELECT @@VERSION'", [("password", p)])
    p = password(rng)
    add("dockerfile", "raw", f"FROM mcr.microsoft.com/mssql/server:2022-latest\nENV ACCEPT_EULA=Y\nENV MSSQL_SA_PASSWORD {p}",
        [("password", p)])
    p = password(rng)
    add("url", "raw", f"DATABASE_URL=postgres://app:{p[:5]}@{p[5:]}@db.internal:5432/app", [("url-password", f"{p[:5]}@{p[5:]}")])
    p = password(rng)
    add("url", "result", f"jdbc:sqlserver://db.acme.dev:1433;databaseName=app;user=sa;password={p};encrypt=true",
        [("password", p)])
    p = password(rng)
    add("url", "go", f'dsn := "root:{p}@tcp(10.0.0.5:3306)/app?parseTime=true"', [("url-password", p)])
    p = password(rng)
    add("env-dump", "raw", f"http_proxy=http://proxyuser:{p}@proxy.acme.dev:3128\nno_proxy=localhost,127.0.0.1",
        [("url-password", p)])
    p = password(rng)
    add("http", "json", f"curl -s --proxy-user ada:{p} -x http://proxy.acme.dev:3128 https://example.com", [("password", p)])
    p = password(rng)
    add("php", "raw", f"'mysql' => [\n    'host' => env('DB_HOST'),\n    'password' => '{p}',\n],", [("password", p)])
    s2 = M["secret"](rng)
    add("shell", "json", f"aws secretsmanager create-secret --name prod/api --secret-string '{s2}'", [("secret", s2)])
    s2 = M["secret"](rng)
    add("shell", "raw", f"gh secret set WEBHOOK_SECRET --body \"{s2}\" --repo acme/api", [("secret", s2)])
    p = password(rng)
    add("json-config", "raw", json.dumps([{"ParameterKey": "DBPassword", "ParameterValue": p},
                                          {"ParameterKey": "Env", "ParameterValue": "prod"}]), [("password", p)])

    # --- Teams webhook URLs ---
    def teams_classic(v2: bool = False) -> str:
        url = (f"https://acme.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/"
               f"{rs(rng, HEX, 32)}/{uuid4(rng)}")
        return url + ("/V2" + mixed(rng, B64URL, 44) if v2 else "")

    def teams_workflow() -> str:
        return (f"https://prod-{rng.randint(10, 99)}.westeurope.logic.azure.com:443/workflows/{rs(rng, HEX, 32)}"
                "/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0"
                f"&sig={mixed(rng, B64URL, 43)}")

    w = teams_classic(v2=True)
    add("env-dump", "raw", f"TEAMS_WEBHOOK_URL={w}", [("teams-webhook", w.split("://", 1)[1])])
    w = teams_classic()
    add("json-config", "raw", json.dumps({"notify": {"teams": w}}).replace("/", "\\/"),
        [("teams-webhook", w.split("://", 1)[1].replace("/", "\\/"))])
    w = teams_workflow()
    add("shell", "json", f"curl -H 'Content-Type: application/json' -d @card.json '{w}'",
        [("teams-webhook", w.split("://", 1)[1])])
    w = teams_workflow().replace("prod-", "default").replace(".westeurope.logic.azure.com:443",
                                                             ".5e.environment.api.powerplatform.com:443/powerautomate/automations/direct")
    add("config", "result", f"alerting:\n  teams_url: \"{w}\"", [("teams-webhook", w.split("://", 1)[1])])
    w = teams_classic(v2=True)
    add("python", "json2", f'requests.post("{w}", json={{"text": "deploy finished"}})',
        [("teams-webhook", w.split("://", 1)[1])])

    # --- a key and its value in separate elements ---
    k = M["api-key"](rng)
    add("plist", "raw", f"$ cat Config.plist\n<dict>\n\t<key>APIKey</key>\n\t<string>{k}</string>\n"
                        "\t<key>Environment</key>\n\t<string>production</string>\n</dict>", [("api-key", k)])
    p = password(rng)
    add("plist", "go", f"<dict><key>Password</key><string>{p}</string><key>User</key><string>ci</string></dict>",
        [("password", p)])
    t = M["token"](rng)
    add("plist", "result", f"<key>AccessToken</key>\n<string>{t}</string>", [("token", t)])
    p = password(rng)
    add("java-properties", "raw", ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE properties SYSTEM '
                                   '"http://java.sun.com/dtd/properties.dtd">\n<properties>\n'
                                   '  <entry key="db.user">app</entry>\n'
                                   f'  <entry key="db.password">{p}</entry>\n</properties>'), [("password", p)])
    p = password(rng)
    add("hibernate", "json", ('<hibernate-configuration>\n  <session-factory>\n'
                              '    <property name="hibernate.connection.username">app</property>\n'
                              f'    <property name="hibernate.connection.password">{p}</property>\n'
                              '  </session-factory>\n</hibernate-configuration>'), [("password", p)])
    k = M["api-key"](rng)
    add("android", "raw", f'<resources>\n    <string name="app_name">Acme</string>\n    <string name="maps_api_key">{k}</string>\n'
                          "</resources>", [("api-key", k)])
    t = M["token"](rng)
    add("dotnet", "result", ('<applicationSettings>\n  <Acme.Properties.Settings>\n'
                             '    <setting name="ApiToken" serializeAs="String">\n'
                             f'      <value>{t}</value>\n    </setting>\n  </Acme.Properties.Settings>\n'
                             '</applicationSettings>'), [("token", t)])
    k = M["api-key"](rng)
    add("postman", "json", json.dumps({"name": "prod", "values": [
        {"key": "baseUrl", "value": "https://api.acme.dev", "enabled": True},
        {"key": "apiKey", "value": k, "type": "secret", "enabled": True}]}, indent=2), [("api-key", k)])
    p = password(rng)
    add("yaml", "raw", f"parameters:\n  - key: region\n    value: eu-west-1\n  - key: password\n    value: {p}\n",
        [("password", p)])

    # --- <meta name="csrf-token" content=...> ---
    t = M["token"](rng)
    add("html", "raw", '<head>\n  <meta name="csrf-param" content="authenticity_token" />\n'
                       f'  <meta name="csrf-token" content="{t}" />\n</head>', [("token", t)])
    t = M["token"](rng)
    add("html", "result", f'<meta content="{t}" name="csrf-token">', [("token", t)])
    t = M["token"](rng)
    add("html", "go", f'<input type="hidden" name="authenticity_token" value="{t}" autocomplete="off" />', [("token", t)])

    # --- prefix-less vendor keys named by their context ---
    t = M["twilio-auth-token"](rng)
    add("env-dump", "raw", f"TWILIO_ACCOUNT_SID=AC{rs(rng, HEX, 32)}\nTWILIO_AUTH_TOKEN={t}\nTWILIO_FROM=+15005550006",
        [("twilio-auth-token", t)])
    t = M["twilio-auth-token"](rng)
    add("python", "raw", f"from twilio.rest import Client\n\naccount_sid = \"AC{rs(rng, HEX, 32)}\"\n"
                         f"auth_token = \"{t}\"\nclient = Client(account_sid, auth_token)", [("twilio-auth-token", t)])
    t = M["cloudflare-api-key"](rng)
    add("env-dump", "json", f"CLOUDFLARE_ACCOUNT_ID={rs(rng, HEX, 32)}\nCLOUDFLARE_API_TOKEN={t}",
        [("cloudflare-api-key", t)])
    g = rs(rng, HEX, 37)
    add("http", "raw", 'curl -X GET "https://api.cloudflare.com/client/v4/zones" -H "X-Auth-Email: ops@acme.dev" '
                       f'-H "X-Auth-Key: {g}"', [("cloudflare-api-key", g)])
    t = M["algolia-api-key"](rng)
    add("env-dump", "raw", f"ALGOLIA_APP_ID={rs(rng, UPPER + DIGITS, 10)}\nALGOLIA_ADMIN_API_KEY={t}",
        [("algolia-api-key", t)])
    t = M["algolia-api-key"](rng)
    add("json-config", "result", json.dumps({"algolia": {"appId": rs(rng, UPPER + DIGITS, 10), "apiKey": t,
                                                          "indexName": "docs"}}, indent=2), [("algolia-api-key", t)])
    return cases


TRACE2_SEED = SEED + 5


def trace_cases_more(rng: random.Random) -> list[dict]:
    """More forms, written after the redactor handled trace_cases and measured before it was
    changed for them (12 of 33 were missed then): positional arguments, other ports, config
    directives, prompts answered by scripts, parameters named elsewhere in their object."""
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("js", "raw", f"const s3 = new S3Client({{ region: 'us-east-1', credentials: {{ accessKeyId: '{kid}', secretAccessKey: '{sec}' }} }});", [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("java", "json", f'AWSCredentials creds = new BasicAWSCredentials("{kid}", "{sec}");', [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("yaml", "raw", f"provider:\n  name: aws\n  environment:\n    AWS_SECRET: {sec}", [("aws-secret-access-key", sec)])
    k = M["azure-storage-key"](rng)
    add("ps", "raw", f"$ctx = New-AzStorageContext -StorageAccountName acmelogs -StorageAccountKey \"{k}\"", [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("shell", "json", f"az storage blob upload --account-name acmelogs --account-key \"{k}\" -c c -f a -n a", [("azure-storage-key", k)])
    p = password(rng)
    add("pgpass", "raw", f"$ cat ~/.pgpass\nacme-db.abc123.us-east-1.rds.amazonaws.com:5433:app:app:{p}", [("password", p)])
    p = password(rng)
    add("netrc", "json", f"machine api.acme.dev login ci password {p}", [("password", p)])
    d = M["datadog-api-key"](rng)
    add("terraform", "raw", f'variable "datadog_api_key" {{\n  default = "{d}"\n}}', [("datadog-api-key", d)])
    d = M["datadog-api-key"](rng)
    add("ansible", "raw", f"datadog_api_key: \"{d}\"\ndatadog_site: datadoghq.eu", [("datadog-api-key", d)])
    j = M["jwt"](rng)
    add("har", "result", json.dumps({"request": {"headers": [{"name": "Authorization", "value": f"Bearer {j}"}]}}), [("jwt", j)])
    p = password(rng)
    add("shell", "raw", f"echo '{p}' | sudo -S systemctl restart nginx", [("password", p)])
    p = password(rng)
    add("expect", "raw", f'expect "password:"\nsend "{p}\\r"', [("password", p)])
    p = password(rng)
    add("shell", "raw", f"smbclient //fs01/share -U ada%{p} -c 'ls'", [("password", p)])
    p = password(rng)
    add("shell", "raw", f"rabbitmqctl add_user deploy {p}", [("password", p)])
    p = password(rng)
    add("sql", "raw", f"ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{p}';", [("password", p)])
    p = password(rng)
    add("redis", "raw", f"$ grep requirepass /etc/redis/redis.conf\nrequirepass {p}", [("password", p)])
    p = password(rng)
    add("redis", "json", f"redis-cli -h cache AUTH {p}", [("password", p)])
    p = password(rng)
    add("shell", "raw", f"mysqladmin -u root password '{p}'", [("password", p)])
    p = url_password(rng)
    add("url", "raw", f"See [the db](postgres://ro:{p}@db.acme.dev/app) for details", [("url-password", p)])
    p = url_password(rng)
    add("url", "json", f"smtp://mailer:{p}@smtp.acme.dev:587", [("url-password", p)])
    p = password(rng)
    add("xml", "raw", f"<parameter>\n  <name>password</name>\n  <value>{p}</value>\n</parameter>", [("password", p)])
    p = password(rng)
    add("ssm", "result", json.dumps({"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": p, "Version": 3}}, indent=2), [("password", p)])
    t = M["token"](rng)
    add("http", "raw", f"X-CSRF-Token: {t}", [("token", t)])
    t = M["token"](rng)
    add("html", "json", f'<input type="hidden" name="csrfmiddlewaretoken" value="{t}">', [("token", t)])
    t = M["doppler-token"](rng)
    add("http", "raw", f"curl -u {t}: https://api.doppler.com/v3/configs", [("doppler-token", t)])
    v = M["kubernetes-secret"](rng)
    add("k8s", "result", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ndata:\n  password: \"{v}\"\n", [("kubernetes-secret", v)])
    v1, v2 = M["kubernetes-secret"](rng), M["kubernetes-secret"](rng)
    add("k8s", "json", json.dumps({"kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "data": {"a": v1, "b": v2}}]}), [("kubernetes-secret", v1), ("kubernetes-secret", v2)])
    u = uuid4(rng)
    add("terraform", "raw", f'provider "heroku" {{\n  email   = "ops@acme.dev"\n  api_key = "{u}"\n}}', [("heroku-api-key", u)])
    w = "https://outlook.office.com/webhook/" + uuid4(rng) + "@" + uuid4(rng) + "/IncomingWebhook/" + rs(rng, HEX, 32) + "/" + uuid4(rng)
    add("url", "result", f"Posting to {w}", [("teams-webhook", w.split("://")[1])])
    a1 = b64(f"ci:{password(rng)}")
    add("config", "raw", f'$ cat ~/.docker/config.json\n{{\n\t"auths": {{\n\t\t"registry.acme.dev": {{\n\t\t\t"auth": "{a1}"\n\t\t}}\n\t}}\n}}', [("basic-auth", a1)])
    t = M["token"](rng)
    add("yaml", "raw", f"github.com:\n    user: ada\n    oauth_token: {t}\n    git_protocol: https", [("token", t)])
    k = M["api-key"](rng)
    add("plist", "json", f"<key>api_key</key>\n<string>{k}</string>", [("api-key", k)])
    p = password(rng)
    add("ini", "raw", f"[mysqld]\nuser = mysql\n[client]\npassword=\"{p}\"", [("password", p)])
    return cases


TRACE3_SEED = SEED + 6


def trace_cases_third(rng: random.Random) -> list[dict]:
    """A third set of forms, again measured before the redactor was changed for them (6 of 31
    missed): fish's set -gx, a bare key under a storage block, quoted .netrc passwords, commands
    that print a named secret, comments in a Secret's data, Twilio's positional client arguments."""
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS
    sec = M["aws-secret-access-key"](rng)
    add("env", "raw", f"declare -x AWS_SECRET_ACCESS_KEY=\"{sec}\"", [("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("fish", "raw", f"set -gx AWS_SECRET_ACCESS_KEY {sec}", [("aws-secret-access-key", sec)])
    sec = M["aws-secret-access-key"](rng)
    add("cli", "json", f"aws configure set default.aws_secret_access_key {sec}", [("aws-secret-access-key", sec)])
    kid, sec = M["aws-access-key-id"](rng), M["aws-secret-access-key"](rng)
    add("csv", "raw", f"User name,Password,Access key ID,Secret access key,Console login link\nci,,{kid},{sec},https://123456789012.signin.aws.amazon.com/console", [("aws-access-key-id", kid), ("aws-secret-access-key", sec)])
    k = M["azure-storage-key"](rng)
    add("env", "json", f"export AZURE_STORAGE_ACCESS_KEY='{k}'", [("azure-storage-key", k)])
    k = M["azure-storage-key"](rng)
    add("yaml", "raw", f"storage:\n  account: acmelogs\n  key: {k}", [("azure-storage-key", k)])
    p = password(rng)
    add("netrc", "result", f"machine smtp.acme.dev\nlogin mailer\npassword \"{p}\"", [("password", p)])
    p = password(rng)
    add("pgpass", "raw", f"PGPASSFILE=/tmp/pgpass\n$ cat /tmp/pgpass\n10.0.0.5:5432:app:app:{p}", [("password", p)])
    d = M["datadog-api-key"](rng)
    add("k8s", "raw", f"apiVersion: datadoghq.com/v2alpha1\nkind: DatadogAgent\nspec:\n  global:\n    credentials:\n      apiKey: {d}", [("datadog-api-key", d)])
    d = M["datadog-api-key"](rng)
    add("url", "raw", f"POST https://http-intake.logs.datadoghq.com/api/v2/logs?dd-api-key={d}&ddsource=nginx", [("datadog-api-key", d)])
    a1 = b64(f"_json_key:{password(rng)}")
    add("docker", "json", f'{{"auths":{{"gcr.io":{{"auth":"{a1}"}}}}}}', [("basic-auth", a1)])
    t = M["doppler-token"](rng)
    add("doppler", "raw", f"$ doppler run --token={t} -- npm start", [("doppler-token", t)])
    u = uuid4(rng)
    add("heroku", "json", f"curl -n -X GET https://api.heroku.com/apps -H \"Authorization: Bearer {u}\" -H \"Accept: application/vnd.heroku+json; version=3\"", [("bearer-token", u)])
    u = uuid4(rng)
    add("heroku", "raw", f"$ heroku config:get HEROKU_API_KEY -a ci-runner\n{u}", [("heroku-api-key", u)])
    j = M["jwt"](rng)
    add("jwt", "raw", f"$ echo $TOKEN\n{j}", [("jwt", j)])
    j = M["jwt"](rng)
    add("jwt", "json", f"Set-Cookie: access_token={j}; Path=/; HttpOnly", [("cookie", f"access_token={j}")])
    j = M["jwt"](rng)
    add("jwt", "raw", f"localStorage['auth'] = JSON.stringify({{accessToken: '{j}'}})", [("jwt", j)])
    v = M["kubernetes-secret"](rng)
    add("k8s", "raw", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  annotations:\n    owner: platform\ndata:\n  # rotated 2025-03\n  token: {v}\n", [("kubernetes-secret", v)])
    v = M["kubernetes-secret"](rng)
    add("k8s", "result", f"{{\n    \"apiVersion\": \"v1\",\n    \"data\": {{\n        \"token\": \"{v}\"\n    }},\n    \"kind\": \"Secret\"\n}}", [("kubernetes-secret", v)])
    p = password(rng)
    add("k8s", "raw", f"kubectl create secret generic db --from-literal=DB_PASSWORD='{p}' -n prod", [("password", p)])
    p = password(rng)
    add("pw", "raw", f"spring.datasource.password: {p}", [("password", p)])
    p = password(rng)
    add("pw", "raw", f"Password={p};Server=db;User Id=sa;", [("password", p)])
    p = password(rng)
    add("pw", "json", f"psql \"host=db.acme.dev port=5432 dbname=app user=app password={p} sslmode=require\"", [("password", p)])
    p = password(rng)
    add("pw", "raw", f"  --db-password=\"{p}\" \\\n  --db-host=db", [("password", p)])
    p = password(rng)
    add("pw", "result", f"[database]\nhost=\"db\"\npasswd=\"{p}\"", [("password", p)])
    p = url_password(rng)
    add("url", "raw", f"pip install --index-url https://__token__:{p}@pypi.acme.dev/simple app", [("url-password", p)])
    p = url_password(rng)
    add("url", "raw", f"ftp://anonymous:{p}@ftp.acme.dev/pub/", [("url-password", p)])
    w = "https://acme.webhook.office.com/webhookb2/" + uuid4(rng) + "@" + uuid4(rng) + "/IncomingWebhook/" + rs(rng, HEX, 32) + "/" + uuid4(rng)
    add("teams", "json", f"TEAMS_URL = '{w}'", [("teams-webhook", w.split("://")[1])])
    k = M["api-key"](rng)
    add("xml", "raw", f"<config>\n  <key name=\"apiKey\">{k}</key>\n</config>", [("api-key", k)])
    t = M["token"](rng)
    add("meta", "raw", f"<meta name=\"csrf_token\" content=\"{t}\">", [("token", t)])
    t = M["twilio-auth-token"](rng)
    add("twilio", "json", f"client = Client('AC{rs(rng, HEX, 32)}', '{t}')  # twilio", [("twilio-auth-token", t)])
    return cases


def trace_negative_cases_more(rng: random.Random) -> list[dict]:
    """Negatives written with trace_cases_third."""
    texts = [
        "AWS_REGION=us-east-1\nAWS_DEFAULT_OUTPUT=json\nAWS_PROFILE=prod",
        "$ aws sts get-caller-identity\n{\"UserId\": \"AROAXXXXXXXXXXXXXXXXX:ada\", \"Account\": \"123456789012\"}",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ntype: Opaque",
        "data:\n  - id: 1\n    name: ada\n  - id: 2\n    name: bob",
        "kind: Secret\n# see docs\ndata: {}",
        "<key>CFBundleShortVersionString</key>\n<string>1.4.2</string>",
        "<meta name=\"theme-color\" content=\"#ffffff\">",
        "10:22:31:418:INFO:worker:started",
        "Building wheel: 12:30:00:app:done",
        json.dumps({"checksum": "sha256:" + rs(rng, HEX, 64), "etag": rs(rng, HEX, 32)}),
        "uuid=" + uuid4(rng) + " request_id=" + uuid4(rng),
        "https://user@host.com:8080/path",
        "git@github.com:acme/x.git",
        "mysql -u root -p app < dump.sql",
        "docker login ghcr.io -u ada",
        "The password field accepts 12 characters; send \"Retry\\r\" to continue.",
        "echo 'done' | tee log.txt",
        "echo 'hello' | sudo -S true",
        "ssh -p 2222 ada@host",
        "variable \"db_password\" {\n  type = string\n  sensitive = true\n}",
        "base64: " + base64.b64encode(bytes(rng.randrange(256) for _ in range(300))).decode(),
        "requirepass ${REDIS_PASSWORD}",
        "redis-cli -h cache ping",
    ]
    return [{"context": "trace", "text": t} for t in texts]


def trace_negative_cases(rng: random.Random) -> list[dict]:
    """Hard negatives next to the forms of trace_cases: ids, hashes, UUIDs and base64 that sit where
    secrets sit (vendor settings that are not keys, Kubernetes objects that are not Secrets, data
    that is not credentials), and placeholders in each form.  Must come back unchanged."""
    sha = lambda: rs(rng, HEX, 40)
    sha256 = lambda: rs(rng, HEX, 64)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(240))).decode()
    jpeg = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(rng.randrange(256) for _ in range(180))).decode()
    sha512 = base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
    texts: list[tuple[str, str]] = [
        # ids and UUIDs where keys sit
        ("uuid", (f"HEROKU_APP_ID={uuid4(rng)}\nHEROKU_APP_NAME=acme-api\nHEROKU_RELEASE_VERSION=v142\n"
                 f"HEROKU_SLUG_COMMIT={sha()}")),
        ("uuid", json.dumps({"tenantId": uuid4(rng), "subscriptionId": uuid4(rng), "clientId": uuid4(rng)})),
        ("uuid", f"AZURE_CLIENT_ID={uuid4(rng)}\nAZURE_TENANT_ID={uuid4(rng)}\nAZURE_SUBSCRIPTION_ID={uuid4(rng)}"),
        ("uuid", f"$ heroku apps:info -a acme-api\n=== acme-api\nId:         {uuid4(rng)}\nStack:      heroku-22"),
        ("uuid", f"X-Request-Id: {uuid4(rng)}\nX-Datadog-Trace-Id: {rng.randrange(10**18, 10**19)}"),
        ("ids", json.dumps({"id": "chatcmpl-" + mixed(rng, B62, 29), "object": "chat.completion",
                            "system_fingerprint": "fp_" + rs(rng, HEX, 10)})),
        ("ids", json.dumps({"id": "msg_01" + mixed(rng, B62, 22), "type": "message", "content": [
            {"type": "tool_use", "id": "toolu_01" + mixed(rng, B62, 22), "name": "bash", "input": {"command": "ls"}}]})),
        ("ids", json.dumps({"customer": "cus_" + mixed(rng, B62, 14), "payment_intent": "pi_" + mixed(rng, B62, 24),
                            "charge": "ch_" + mixed(rng, B62, 24)})),
        ("ids", f"i-0{rs(rng, HEX, 16)}  running  sg-0{rs(rng, HEX, 16)}  vpc-0{rs(rng, HEX, 16)}"),
        ("ids", json.dumps({"_id": {"$oid": rs(rng, HEX, 24)}, "node_id": "MDQ6VXNlcj" + mixed(rng, B62, 6) + "=",
                            "channel": "C0" + rs(rng, UPPER + DIGITS, 9)})),
        ("ids", f"OPENAI_ORG_ID=org-{mixed(rng, B62, 24)}\nOPENAI_PROJECT_ID=proj_{mixed(rng, B62, 24)}"),
        ("ids", (f"CONTAINER ID   IMAGE\n{rs(rng, HEX, 12)}   postgres:16\n$ docker inspect --format '{{{{.Id}}}}' db\n"
                f"{sha256()}")),
        ("ids", (f"dd.trace_id={rng.randrange(10**18, 10**19)} dd.span_id={rng.randrange(10**18, 10**19)} "
                "dd.service=checkout dd.env=prod")),
        ("ids", f"TWILIO_ACCOUNT_SID=AC{rs(rng, HEX, 32)}\nTWILIO_MESSAGING_SERVICE_SID=MG{rs(rng, HEX, 32)}"),
        ("ids", f"ALGOLIA_APP_ID={rs(rng, UPPER + DIGITS, 10)}\nALGOLIA_INDEX_NAME=docs_prod"),
        ("ids", f"CLOUDFLARE_ACCOUNT_ID={rs(rng, HEX, 32)}\nCLOUDFLARE_ZONE_ID={rs(rng, HEX, 32)}"),
        ("ids", f"DD_SITE=datadoghq.com\nDD_ENV=prod\nDD_SERVICE=checkout\nDD_VERSION=1.4.2\nDD_API_KEY_ID={uuid4(rng)}"),
        # hashes
        ("hash", json.dumps({"sha": sha(), "node_id": "C_kwDO" + mixed(rng, B62, 30), "commit": {"tree": {"sha": sha()}}})),
        ("hash", (f"ETag: \"{rs(rng, HEX, 32)}\"\nContent-MD5: {base64.b64encode(bytes(16)).decode()}\n"
                 f"x-amz-content-sha256: {sha256()}")),
        ("hash", f"Digest: sha256:{sha256()}\nStatus: Downloaded newer image for postgres:16"),
        ("hash", json.dumps({"node_modules/@azure/storage-blob": {
            "version": "12.17.0", "resolved": "https://registry.npmjs.org/@azure/storage-blob/-/storage-blob-12.17.0.tgz",
            "integrity": f"sha512-{sha512}"}}, indent=2)),
        ("hash", f"  integrity: sha512-{sha512}\n  resolution: {{registry: https://registry.npmjs.org/}}"),
        ("hash", f"SHA256 ({sha256()[:12]}.tar.gz) = {sha256()}"),
        ("hash", f"[s3]\n  etag = {rs(rng, HEX, 32)}-4\n  version_id = {mixed(rng, B62, 32)}"),
        # base64 images and data
        ("base64", json.dumps({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                           "data": png}})),
        ("base64", json.dumps({"data": [{"b64_json": png, "revised_prompt": "a cat"}]})),
        ("base64", json.dumps({"image_url": {"url": f"data:image/jpeg;base64,{jpeg}"}})),
        ("base64", json.dumps({"data": {"viewer": {"login": "ada", "avatarUrl": "https://avatars.githubusercontent.com/u/1"}}})),
        ("base64", json.dumps({"data": {"id": "42", "type": "users", "attributes": {"token_count": 12}}})),
        ("base64", f"  screenshot: {png[:120]}\n  mime: image/png"),
        # Kubernetes objects that are not Secrets, and Secrets without values
        ("k8s", ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: info\n"
                f"  FEATURE_FLAGS: {base64.b64encode(b'new-checkout,dark-mode').decode()}\n")),
        ("k8s", json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "data": {"config.yaml": "port: 8080\n"}}, indent=2)),
        ("k8s", ("$ kubectl describe secret db-credentials\nName:         db-credentials\nType:  Opaque\n\nData\n====\n"
                "password:  16 bytes\nusername:  8 bytes")),
        ("k8s", "$ kubectl get secrets\nNAME             TYPE     DATA   AGE\ndb-credentials   Opaque   2      5d"),
        ("k8s", ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {{ .Values.db.password | b64enc }}\n"
                "  username: <base64-encoded-username>\n")),
        ("k8s", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: ${DB_PASSWORD}\n"),
        ("k8s", "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d > /tmp/pw && echo saved\nsaved"),
        ("k8s", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password"),
        # credential files without credentials
        ("netrc", "machine github.com login ada\nmachine api.heroku.com\n  login ada@acme.dev\n  password ${HEROKU_API_KEY}"),
        ("pgpass", "$ cat ~/.pgpass\ncat: /home/ada/.pgpass: No such file or directory\n$ chmod 0600 ~/.pgpass"),
        ("pgpass", ("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                   "postgres:x:999:999::/var/lib/postgresql:/bin/bash")),
        ("pgpass", ("2025-03-14 10:22:31.118 UTC [42] LOG:  connection received: host=10.0.0.7 port=5432\n"
                   "db.internal:5432 - accepting connections\nlocalhost:5432:*:postgres:${PGPASSWORD}")),
        ("docker-config", json.dumps({"auths": {"ghcr.io": {}, "https://index.docker.io/v1/": {}},
                                      "credsStore": "desktop", "credHelpers": {"gcr.io": "gcloud"}}, indent=2)),
        ("docker-config", json.dumps({"auths": {"registry.acme.dev": {"auth": ""}}, "currentContext": "default"})),
        ("git-credentials", "$ git config --global credential.helper store\n$ git config --global user.email ada@acme.dev"),
        # URLs without passwords
        ("url", "git clone https://ada@github.com/acme/infra.git\npsql postgres://app@db.internal:5432/app"),
        ("url", "ssh://git@git.acme.dev:2222/platform/api.git\nhttp://[fe80::1]:8080/health\nmailto:ops@acme.dev"),
        ("url", ("https://registry.npmjs.org/@types%2fnode\nhttps://www.npmjs.com/package/@scope/name\n"
                "https://cdn.acme.dev:8443/assets/app.js@3.1.0")),
        ("url", "https://teams.microsoft.com/l/channel/19%3a" + mixed(rng, B62, 32) + "%40thread.tacv2/General?groupId="
                + uuid4(rng) + "&tenantId=" + uuid4(rng)),
        ("url", "TEAMS_WEBHOOK_URL=${TEAMS_WEBHOOK_URL}\nteams_url: https://acme.webhook.office.com/webhookb2/<your-webhook-id>"),
        ("url", "dsn := fmt.Sprintf(\"%s:%s@tcp(%s)/%s\", user, pass, host, name)"),
        # commands that name credentials without holding them
        ("shell", ("$ aws configure set region eu-west-1\n$ aws configure get aws_secret_access_key\n"
                  "$ npm config set registry https://registry.acme.dev/")),
        ("shell", "$ docker login -u ada --password-stdin ghcr.io < token.txt\n$ docker run -p 5432:5432 postgres:16"),
        ("shell", "$ htpasswd -c /etc/nginx/.htpasswd ada\nNew password:\n$ mongosh -u admin -p\nEnter password:"),
        ("shell", "$ openssl pkcs12 -export -passout env:P12_PASS -in c.pem -out c.p12\n$ openssl rsa -passin file:pass.txt"),
        ("shell", "$ sqlcmd -S db.acme.dev -E -Q 'SELECT 1'\n$ gh secret set DEPLOY_KEY < key.pem\n$ gh secret list"),
        ("shell", "PS C:\\> $env:DB_PASSWORD = Read-Host -AsSecureString\nPS C:\\> $s = ConvertTo-SecureString $plain -AsPlainText -Force"),
        ("shell", "C:\\> setx PATH \"%PATH%;C:\\tools\"\nC:\\> setx JAVA_HOME \"C:\\Program Files\\Java\\jdk-21\""),
        ("shell", "aws secretsmanager create-secret --name prod/db --secret-string file://creds.json"),
        ("shell", "$ heroku auth:token\n \u203a   Error: not logged in"),
        ("shell", ("$ az storage account keys list -g rg -n acmelogs --query '[0].value' -o tsv\n"
                  "ERROR: (AuthorizationFailed) The client does not have authorization")),
        ("php", "define( 'DB_PASSWORD', getenv('DB_PASSWORD') );\ndefine( 'WP_DEBUG', false );"),
        ("python", ("os.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", \"app.settings\")\n"
                   "token = os.environ.get(\"API_TOKEN\", \"\")")),
        ("java", ("System.setProperty(\"http.proxyHost\", \"proxy.acme.dev\");\n"
                 "props.getProperty(\"db.password\", \"changeme\");")),
        # markup that names a secret but holds none
        ("plist", ("<key>CFBundleIdentifier</key>\n<string>com.acme.app</string>\n<key>CFBundleVersion</key>\n"
                  "<string>42</string>\n<key>NSCameraUsageDescription</key>\n<string>Scan receipts</string>")),
        ("plist", "<key>APIKey</key>\n<string>$(API_KEY)</string>\n<key>TokenType</key>\n<string>Bearer</string>"),
        ("xml", ('<entry key="db.user">app</entry>\n<entry key="password.min.length">12</entry>\n'
                '<property name="hibernate.connection.username">app</property>')),
        ("xml", ('<setting name="ApiToken" serializeAs="String">\n  <value />\n</setting>\n'
                '<string name="password_hint">At least 12 characters</string>')),
        ("html", ('<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                 '<meta name="csrf-param" content="authenticity_token" />\n'
                 f'<meta name="google-site-verification" content="{mixed(rng, B64URL, 43)}" />')),
        ("html", ('<input type="password" name="password" autocomplete="current-password"> Remember me\n'
                 '<label for="token">Token</label>')),
        ("json", json.dumps([{"ParameterKey": "Env", "ParameterValue": "prod"},
                             {"ParameterKey": "DBPassword", "UsePreviousValue": True}])),
        # JWT-like text that is not a token
        ("jwt-like", json.dumps({"NextToken": "eyJ" + mixed(rng, B64URL, 60) + "==", "MaxResults": 50})),
        ("jwt-like", "config=eyJ2ZXJzaW9uIjoxLCJmZWF0dXJlcyI6WyJhIiwiYiJdfQ== mode=ro"),
    ]
    return [{"context": c, "text": t} for c, t in texts]


NAME_VALUE_NEGATIVES: list[tuple[str, str]] = [
    ("ecs", '{"name": "REGION", "value": "eu-west-1"}, {"name": "LOG_LEVEL", "value": "debug"}'),
    ("ecs", '{"name": "DB_PASSWORD", "value": ""}, {"name": "API_TOKEN", "value": "${API_TOKEN}"}'),
    ("k8s", '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}'),
    ("llm", '{"name": "max_tokens", "value": 4096}, {"name": "session", "value": "abc123def456"}'),
]


MARKUP_NEGATIVES: list[tuple[str, str]] = [
    ("xml", "<server>\n  <id>acme</id>\n  <username>deploy</username>\n  <password></password>\n</server>"),
    ("xml", "<server>\n  <password/>\n  <token />\n</server>"),
    ("xml", "<password>${DB_PASS}</password>"),
    ("xml", "<password>changeme</password>"),
    ("xml", "<password>{{ .Values.pw }}</password>"),
    ("xml", "<password>***</password>\n<token>xxxxxxxxxxxxxxxx</token>"),
    ("xml", "<password><![CDATA[${DB_PASS}]]></password>"),
    ("xml", "<passwordPolicy>strict</passwordPolicy>\n<tokenCount>12</tokenCount>"),
    ("xml", "<apiKeyHeader>X-Api-Key</apiKeyHeader>\n<secretName>prod-db</secretName>"),
    ("html", "<p>the password is required</p>"),
    ("html", "<label for=\"password\">Password</label>\n<input type=\"password\" name=\"password\" value=\"\">"),
    ("android", "<string name=\"password\">Password</string>\n<string name=\"prompt_password\">Enter your password</string>"),
    ("xsd", "<xs:element name=\"password\" type=\"xs:string\" minOccurs=\"0\"/>"),
    ("xml", "<add key=\"TokenExpiry\" value=\"3600\"/>\n<option name=\"passwordPolicy\" value=\"Strict12\"/>"),
    ("xml", "<add key=\"ApiKey\"/>\n<add key=\"Region\" value=\"9f8e7d6c5b4a3f2e1d0c\"/>"),
    ("aws-xml", "<ListObjectsV2Result><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListObjectsV2Result>"),
    ("plist", "<key>AccessToken</key>\n<string>$(ACCESS_TOKEN)</string>"),
    ("prompt", "<secret>This is the secret message</secret>"),
    ("xml", "<password>myPassword</password>"),
    ("xml", "</password>Tr0ub4dor3x</server>"),
    ("shell", "$ echo pass>hunter2x.txt </dev/null"),
    ("go", "\"\\u003cpassword\\u003e${DB_PASS}\\u003c/password\\u003e\""),
]


# ---------------------------------------------------------------------------
# Negatives: must come back byte-for-byte unchanged
# ---------------------------------------------------------------------------

def negative_cases(rng: random.Random) -> list[dict]:
    sha = lambda: rs(rng, HEX, 40)
    sha256 = lambda: rs(rng, HEX, 64)
    integrity = "sha512-" + base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
    blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(180))).decode()
    sshpub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + mixed(rng, B64, 43) + " ada@laptop"
    rsapub = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + mixed(rng, B64, 300) + " ci@runner"
    pubpem = ("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + mixed(rng, B64, 28)
              + "\n" + mixed(rng, B64, 24) + "==\n-----END PUBLIC KEY-----")
    cert = ("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n"
            + "\n".join(mixed(rng, B64, 64) for _ in range(4)) + "\n-----END CERTIFICATE-----")
    jwt_io = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
              "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
    texts: list[tuple[str, str]] = [
        # hashes and ids
        ("git", f"commit {sha()}\nAuthor: Ada <ada@example.com>\n\n    fix tokenizer edge case"),
        ("git", f"$ git rev-parse HEAD\n{sha()}"),
        ("git", f"Merge: {sha()[:7]} {sha()[:7]}\n{sha()} refs/heads/main"),
        ("git", f"$ git log --oneline\n{sha()[:7]} Add password reset flow\n{sha()[:7]} Bump token budget"),
        ("uuid", json.dumps({"session_id": uuid4(rng), "request_id": uuid4(rng), "turn": 3})),
        ("uuid", f"trace_id={uuid4(rng)} span_id={rs(rng, HEX, 16)} status=OK"),
        ("uuid", json.dumps({"sessionId": uuid4(rng), "cwd": "/home/agent/repo"})),
        ("hash", f"sha256:{sha256()}"),
        ("hash", f"{sha256()}  dist/trajectory_cleaner-0.3.1-py3-none-any.whl"),
        ("hash", f"FROM python:3.12-slim@sha256:{sha256()}"),
        ("hash", f'"integrity": "{integrity}"'),
        ("hash", f"    resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#{sha()}\""),
        ("hash", f"github.com/stretchr/testify v1.9.0 h1:{base64.b64encode(bytes(32)).decode()[:43]}="),
        ("hash", f'checksum = "{sha256()}"'),
        ("hash", f"md5: {rs(rng, HEX, 32)}  etag: \"{rs(rng, HEX, 32)}\""),
        ("hash", f"content_hash: {sha256()}"),
        ("base64", f"data:image/png;base64,{blob}"),
        ("base64", f'{{"type": "image", "source": {{"type": "base64", "data": "{blob[:120]}"}}}}'),
        # documented example keys
        ("example", ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
                    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")),
        ("example", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"),
        ("example", f"Example JWT from jwt.io: {jwt_io}"),
        ("example", "stripe.api_key = \"sk_test_4eC39HqLyjWDarjtT1zdp7dc\""),
        ("example", "SLACK_WEBHOOK=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
        ("example", "token = \"xoxb-not-a-real-token-this-will-not-work\""),
        # placeholders
        ("placeholder", "OPENAI_API_KEY=sk-..."),
        ("placeholder", "export OPENAI_API_KEY=YOUR_API_KEY"),
        ("placeholder", "curl -H \"Authorization: Bearer <token>\" https://api.example.com"),
        ("placeholder", "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com"),
        ("placeholder", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
        ("placeholder", "env:\n  GITHUB_TOKEN: ${GITHUB_TOKEN}"),
        ("placeholder", "mysql -u root -p$PASSWORD app"),
        ("placeholder", "password: xxx"),
        ("placeholder", "password: changeme"),
        ("placeholder", "DB_PASSWORD=***"),
        ("placeholder", '"password": "********"'),
        ("placeholder", "postgres://user:password@localhost:5432/db"),
        ("placeholder", "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"),
        ("placeholder", "mongodb://<username>:<password>@cluster0.mongodb.net"),
        ("placeholder", "https://user:${PASS}@git.example.com/repo.git"),
        ("placeholder", "api_key: <your-api-key>"),
        ("placeholder", "ANTHROPIC_API_KEY=sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ("placeholder", "token: \"{{ .Values.token }}\""),
        ("placeholder", "password = %(db_password)s"),
        ("placeholder", "GH_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ("placeholder", "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"),
        ("placeholder", "\"api_key\": \"[REDACTED:api-key]\""),
        ("placeholder", "Authorization: Bearer [REDACTED:jwt]"),
        ("placeholder", "export HF_TOKEN=hf_your_token_here"),
        ("placeholder", "password: !vault |"),
        # public keys and certificates
        ("public-key", sshpub),
        ("public-key", rsapub),
        ("public-key", pubpem),
        ("public-key", cert),
        ("public-key", "STRIPE_PUBLISHABLE_KEY=pk_live_" + mixed(rng, B62, 24)),
        # words
        ("words", "Implemented the password reset flow and the forgot-password email."),
        ("words", "We are over the token budget; reduce max_tokens=4096 to 2048."),
        ("words", json.dumps({"usage": {"prompt_tokens": 1234, "completion_tokens": 56,
                                        "total_tokens": 1290}})),
        ("words", "token_count: 12\nmax_tokens: 4096\ntokens_per_second: 41.7"),
        ("words", json.dumps({"usage": {"input_tokens": 88, "cache_creation_input_tokens": 0,
                                        "output_tokens": 12}})),
        ("words", "The API key is read from the environment; never commit secrets."),
        ("words", "Set the token: use your GitHub token from the settings page"),
        ("words", "Password: must be at least 12 characters long"),
        ("words", json.dumps({"token": " the", "logprob": -0.012, "bytes": [32, 116, 104, 101]})),
        ("words", '{"bos_token": "<s>", "eos_token": "</s>", "pad_token": "[PAD]"}'),
        ("words", "secret sauce: caching the tokenizer"),
        # code
        ("code", "password = request.form[\"password\"]"),
        ("code", "token = os.getenv(\"GITHUB_TOKEN\")"),
        ("code", "client = OpenAI(api_key=api_key)"),
        ("code", "def login(username: str, password: str) -> Session:"),
        ("code", "    password: Optional[str] = None"),
        ("code", "const token = await getToken();"),
        ("code", "  apiKey: process.env.OPENAI_API_KEY,"),
        ("code", "interface Creds { user: string; password?: string; token: string }"),
        ("code", "if not token:\n    raise ValueError(\"token is required\")"),
        ("code", "api_key = settings.api_key or os.environ[\"API_KEY\"]"),
        ("code", "password = hashlib.sha256(raw.encode()).hexdigest()"),
        ("code", "secret = secrets.token_urlsafe(32)"),
        ("code", "user.password = make_password(form.cleaned_data['password'])"),
        ("code", "{ password: hashedPassword, token: accessToken }"),
        ("code", "cursor.execute(\"UPDATE users SET password = ? WHERE id = ?\", (pw, uid))"),
        ("code", "headers = {\"Authorization\": f\"Bearer {token}\"}"),
        ("code", "    \"password\": {\"type\": \"string\", \"minLength\": 8},"),
        ("code", "token_type: str = \"bearer\""),
        ("code", "for token in tokenizer.encode(text):"),
        # shell and env that is not secret
        ("shell", "PWD=/home/agent/work/repo\nOLDPWD=/home/agent\nSHLVL=1"),
        ("shell", "$ docker login ghcr.io -u ada --password-stdin < token.txt"),
        ("shell", "$ docker run -p 8080:80 -u 1000:1000 nginx"),
        ("shell", "$ mkdir -p src/app && git push -u origin main"),
        ("shell", "$ gh auth login --with-token < ~/.config/gh/token"),
        ("shell", "ssh-add ~/.ssh/id_ed25519\nIdentity added: /home/ada/.ssh/id_ed25519 (ada@laptop)"),
        ("shell", "git clone git@github.com:acme/infra.git\nCloning into 'infra'..."),
        ("shell", "curl -s https://user@example.com/api http://localhost:8080/health"),
        ("shell", "export SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234"),
        ("shell", "kubectl get secret db-credentials -o jsonpath='{.data.password}' | base64 -d"),
        ("shell", "valueFrom:\n  secretKeyRef:\n    name: db-secret\n    key: password"),
        ("shell", ("pip download hf_transfer huggingface_hub; python -c 'from huggingface_hub import "
                  "hf_hub_download'")),
        ("shell", ("aws iam get-user\n{\"UserId\": \"AIDAJQABLZS4A3QDU576Q\", \"Arn\": "
                  "\"arn:aws:iam::123456789012:user/ada\"}")),
        ("shell", "npm install lodash@4.17.21 @types/node@20.11.5"),
        ("shell", "PASSWORD_MIN_LENGTH=12\nTOKEN_TTL_SECONDS=3600\nSESSION_COOKIE_AGE=1209600"),
        ("shell", "Bearer tokens are passed in the Authorization header."),
        ("shell", "Set-Cookie: <cookie-name>=<cookie-value>"),
        ("shell", "The cookie banner is shown on first visit; session_id rotates on login."),
        ("shell", "task-3f9a2b7c-run completed; disk-usage 71%"),
        ("shell", "$ ls ~/.ssh\nid_ed25519  id_ed25519.pub  known_hosts  authorized_keys"),
        ("code", "    Pass :meth:`peek` a default value to return that instead of raising"),
        ("code", '    "passwd:gecos",\n    "passwd:name",'),
        ("docs", "[set up the credentials]: https://github.com/nodejs/node-core-utils#setting-up-credentials"),
        ("docs", "information can be provided via the --username and --password options"),
        ("code", "def step(self, shrink_pass: ShrinkPass, *, random_order: bool = False) -> bool:"),
        ("code", "authorization = authorization[1].encode('ascii')"),
        ("code", "run('scp foo user@example.com:.', events={'(?i)password': mypassword})"),
        ("docs", "   >>> C.load('rocky=road; Path=/cookie')\n   Cookie: rocky=road"),
        ("code", "user_pass = '%s:%s' % (unquote(user), unquote(passwd))"),
        ("code", "topics = {'pass': 'The \"pass\" statement\\n*****\\n'}"),
        # found by scanning installed packages (botocore, cfnlint, antlr, cryptography...)
        ("api-data", '      "input_token": "nextToken",\n      "output_token": "nextToken",'),
        ("api-data", '{"NextToken": "eyJ2IjoxLCJjIjoiQUFBQUFBQUE", "ClientToken": "' + uuid4(rng) + '"}'),
        ("api-data", ('    "AWS::ApiGateway::ApiKey": "48205d4ffd7feba3",\n'
                     '    "AWS::Config::AggregationAuthorization": "af318b77aaceeeaa",')),
        ("api-data", '"SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:mySecret1"'),
        ("api-data", '"ServiceSpecificCredentialId": "ACCAQFODXMPL4YFHP7DZE"'),
        ("api-data", "--sse-specification Enabled=true,SSEType=KMS,KMSMasterKeyId=abcd1234-abcd-1234-a123-ab1234a1b234"),
        ("api-data", '{"activeSessionId": "st-a1b2c3d4e5f6g"}'),
        ("code", "def login(self, server, username=None, password='', terminal_type='ansi'):"),
        ("code", "def __init__(self, recognizer:Parser, input:TokenStream=None, startToken:Token=None):"),
        ("code", "MLKEM768X25519PrivateKey = rust_openssl.hpke.MLKEM768X25519PrivateKey"),
        ("code", 'ALLOW_CREDENTIALS = "Access-Control-Allow-Credentials"'),
        ("code", "    private_key: PKCS7PrivateKeyTypes,"),
        ("code", "    ExtendedKeyUsageOID.SERVER_AUTH: \"serverAuth\","),
        ("code", "filters = {'pass': 'bandpass', 'stop': 'bandstop'}"),
        ("code", '"""Load and return a dynamic library identified by \'name\'."""'),
        ("xml", '<assemblyIdentity type="win32" name="Microsoft.VC90.CRT" publicKeyToken="1fc8b3b9a1e18e3b"/>'),
        ("shell", "x-request-id: " + uuid4(rng) + "\ncontent-length: 1432\netag: W/\"" + sha() + "\""),
    ]
    return [{"context": c, "text": t} for c, t in texts]


HIDDEN_SEED = SEED + 7


def _jwt_with(rng: random.Random, header: dict, *, pad: bool = False, sig: str = B64URL, sig_len: int = 43) -> str:
    """A JWT with the given header: padded segments (some libraries emit them) or a signature in
    another alphabet (standard base64 from hand-rolled signers) on demand."""
    def seg(obj: dict) -> str:
        raw = base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()
        return raw if pad else raw.rstrip("=")
    payload = {"sub": rs(rng, DIGITS, 9), "iss": "https://auth.acme.dev", "exp": rng.randint(1_750_000_000, 1_800_000_000)}
    return f"{seg(header)}.{seg(payload)}.{mixed(rng, sig, sig_len)}"


def _jwe(rng: random.Random) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"RSA-OAEP-256","enc":"A256GCM"}').decode().rstrip("=")
    return ".".join([head, mixed(rng, B64URL, 342), mixed(rng, B64URL, 16), mixed(rng, B64URL, 180),
                     mixed(rng, B64URL, 22)])


def hidden_style_cases(rng: random.Random) -> list[dict]:
    """Issue 36's missed classes in the forms a corpus of real-looking secrets holds them, written
    and measured before the redactor was changed for them: an AWS secret access key without its key
    id (prompts, tables, prose, Hadoop and S3 settings), JWTs in other shapes (padded, JWE, standard
    base64 signature), password assignments whose value holds brackets, separators and shell
    characters, URL passwords with the characters a URL should have encoded, Terraform Cloud tokens
    and Twilio credentials (an auth token beside its account SID, API keys and their secrets)."""
    cases: list[dict] = []

    def add(ctx: str, enc: str, raw: str, labels: list[tuple[str, str]]) -> None:
        cases.append(labelled(ctx, enc, raw, labels))

    M = MAKERS
    aws = "aws-secret-access-key"

    # --- AWS secret access keys, no key id beside them ---
    s = M[aws](rng)
    add("cli", "raw", "$ aws configure --profile ci\nAWS Access Key ID [None]: \n"
                      f"AWS Secret Access Key [None]: {s}\nDefault region name [None]: eu-west-1", [(aws, s)])
    s = M[aws](rng)
    add("cli", "result", "$ aws configure\nAWS Access Key ID [****************7Q2M]: \n"
                         f"AWS Secret Access Key [****************wK9e]: {s}\nDefault output format [json]: ", [(aws, s)])
    s = M[aws](rng)
    add("markdown", "raw", f"| key | value |\n|---|---|\n| aws_secret_access_key | {s} |\n| region | us-east-1 |", [(aws, s)])
    s = M[aws](rng)
    add("console", "json", f"Access key created.\nSecret access key: {s}\nStore it now: it cannot be shown again.", [(aws, s)])
    s = M[aws](rng)
    add("prose", "raw", f"The secret access key for the ci-deploy user is {s} (rotate it after the demo).", [(aws, s)])
    s = M[aws](rng)
    add("yaml", "raw", f"storage:\n  s3:\n    bucket: acme-artifacts\n    region: eu-west-1\n    secretKey: {s}", [(aws, s)])
    s = M[aws](rng)
    add("hadoop", "raw", "<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n"
                         f"    <value>{s}</value>\n  </property>\n</configuration>", [(aws, s)])
    s = M[aws](rng)
    add("spark", "json2", f"spark-submit --conf spark.hadoop.fs.s3a.secret.key={s} job.py", [(aws, s)])
    s = M[aws](rng)
    add("env", "go", f"SECRET_ACCESS_KEY={s}\nBUCKET=acme-builds", [(aws, s)])
    s = M[aws](rng)
    add("json-config", "result", json.dumps({"s3": {"endpoint": "https://s3.eu-west-1.amazonaws.com",
                                                    "secretAccessKey": s}}, indent=2), [(aws, s)])
    s = M[aws](rng)
    add("cli", "raw", f"Secret Access Key      {s}\nStatus                 Active", [(aws, s)])
    s = M[aws](rng)
    add("csv", "json", f"User name,Secret access key,Console login link\nci-deploy,{s},https://acme.signin.aws.amazon.com/console",
        [(aws, s)])

    # --- JWTs in other shapes ---
    j = _jwt_with(rng, {"alg": "HS256", "typ": "JWT"}, pad=True)
    add("log", "raw", f"DEBUG refreshed token {j} for user 42", [("jwt", j)])
    j = _jwe(rng)
    add("yaml", "raw", f"oidc:\n  id_token: {j}\n  expires_in: 3600", [("jwt", j)])
    j = _jwt_with(rng, {"kid": rs(rng, HEX, 16), "alg": "ES256"}, sig_len=86)
    add("http", "json", f"curl -H 'X-Auth-Jwt: {j}' https://api.acme.dev/v1/me", [("jwt", j)])
    j = _jwt_with(rng, {"typ": "JWT", "alg": "RS256"}, sig=B64, sig_len=342)
    add("http", "raw", f"> GET /v2/orders HTTP/1.1\n> Authorization: Bearer {j}\n> Accept: */*", [("jwt", j)])
    j = _jwt_with(rng, {"alg": "none"}, sig="", sig_len=0)
    add("log", "result", f"rejected unsigned token {j} (alg none)", [("jwt", j)])
    j = M["jwt"](rng)
    add("form", "json2", f"grant_type=refresh_token&access_token={j}&client_id=web", [("jwt", j)])
    j = M["jwt"](rng)
    add("python", "go", f"{{'user': 'ada', 'jwt': '{j}', 'ok': True}}", [("jwt", j)])

    # --- password assignments, values with symbols ---
    pw_forms = [
        ("dotenv", "raw", "DB_PASSWORD={p}\nDB_HOST=db"),
        ("yaml", "raw", "database:\n  user: app\n  password: {p}\n  pool: 5"),
        ("yaml", "result", "auth:\n  passwd: {p}"),
        ("env", "raw", "MYSQL_PWD={p} mysql -u root -h db"),
        ("properties", "raw", "keystore.password={p}\nkeystore.type=PKCS12"),
        ("json-config", "raw", '{{"username": "svc", "password": "{p}"}}'),
        ("python", "json", 'password = "{p}"'),
        ("go", "raw", 'cfg.Password := "{p}"'),
        ("php", "raw", "$password = '{p}';"),
        ("ruby", "raw", ":password => \"{p}\","),
        ("ini", "raw", "[smtp]\nuser = mailer\npassword = {p}"),
        ("windows", "raw", "C:\\> set PASSWORD={p}"),
        ("compose", "raw", "    environment:\n      - POSTGRES_PASSWORD={p}\n      - POSTGRES_DB=app"),
        ("odbc", "raw", "Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={p};Encrypt=yes"),
        ("log", "raw", "INFO connect user=app password={p} host=db"),
        ("yaml", "json", "admin_password: \"{p}\""),
        ("toml", "raw", "[db]\npwd = \"{p}\""),
        ("js", "raw", "const PASSWORD = `{p}`;"),
        ("shell", "json", "export PGPASSWORD='{p}'"),
        ("yaml", "raw", "redis:\n  pass: {p}\n  db: 0"),
    ]
    for ctx, enc, tmpl in pw_forms:
        p = symbol_password(rng)
        add(ctx, enc, tmpl.format(p=p), [("password", p)])
    for ctx, enc, tmpl in [("dotenv", "raw", "pwd={p}"), ("yaml", "raw", "password: '{p}'"),
                           ("json-config", "json2", '{{"passwd": "{p}"}}')]:
        p = password(rng)
        add(ctx, enc, tmpl.format(p=p), [("password", p)])

    # --- URL passwords: scheme, user and host stay ---
    url_forms = [
        ("url", "raw", "DATABASE_URL=postgres://app:{p}@db.internal:5432/app"),
        ("url", "json", "mongosh 'mongodb+srv://admin:{p}@cluster0.ab12c.mongodb.net/prod'"),
        ("url", "raw", "redis://default:{p}@cache.internal:6379/0"),
        ("url", "result", "amqps://svc:{p}@mq.acme.dev/vhost"),
        ("url", "raw", "jdbc:postgresql://etl:{p}@db.acme.dev:5432/warehouse"),
        ("url", "raw", "sftp://deploy:{p}@files.acme.dev/incoming"),
        ("url", "json2", 'create_engine("mysql+pymysql://etl:{p}@10.0.3.7/warehouse")'),
        ("url", "raw", "pip install --extra-index-url https://ci:{p}@pypi.acme.dev/simple app"),
        ("url", "raw", "postgresql://app:{p}@[::1]:5432/app"),
        ("url", "raw", "git remote add origin https://bot:{p}@git.acme.dev/platform/api.git"),
        ("url", "result", "HTTPS_PROXY=http://proxyuser:{p}@proxy.acme.dev:3128"),
        ("url", "raw", "ldap://cn=admin:{p}@ldap.acme.dev:389"),
    ]
    for ctx, enc, tmpl in url_forms:
        p = symbol_password(rng).replace("@", "!")  # an @ in userinfo is a case of its own (above)
        add(ctx, enc, tmpl.format(p=p), [("url-password", p)])
    p = symbol_password(rng).replace("@", "!").replace("/", "\\/")
    add("url", "raw", '{"dsn": "https:\\/\\/ci:' + p + '@registry.acme.dev\\/v2"}', [("url-password", p)])
    p = url_password(rng)
    add("url", "raw", f"smtps://mailer:{p}@smtp.acme.dev:465", [("url-password", p)])

    # --- Terraform Cloud / Enterprise tokens ---
    tf = "terraform-cloud-token"
    t = M[tf](rng)
    add("env", "raw", f"TFE_TOKEN={t}\nTFE_HOSTNAME=app.terraform.io", [(tf, t)])
    t = M[tf](rng)
    add("json-config", "result", "$ cat ~/.terraform.d/credentials.tfrc.json\n"
        + json.dumps({"credentials": {"app.terraform.io": {"token": t}}}, indent=2), [(tf, t)])
    t = M[tf](rng)
    add("hcl", "raw", f'credentials "app.terraform.io" {{\n  token = "{t}"\n}}', [(tf, t)])
    t = M[tf](rng)
    add("env", "json", f"export TF_TOKEN_app_terraform_io={t}", [(tf, t)])
    t = M[tf](rng)
    add("http", "json", f'curl -H "Authorization: Bearer {t}" -H "Content-Type: application/vnd.api+json" '
                        "https://app.terraform.io/api/v2/organizations", [(tf, t)])
    t = M[tf](rng)
    add("manifest", "raw", f"      - uses: hashicorp/setup-terraform@v3\n        with:\n          cli_config_credentials_token: {t}",
        [(tf, t)])
    t = M[tf](rng)
    add("log", "raw", f"Token for app.terraform.io:\n  Enter a value: {t}\n\nRetrieved token for user ada", [(tf, t)])

    # --- Twilio: auth token beside its account SID, API keys and their secrets ---
    tw = "twilio-auth-token"
    t = M[tw](rng)
    add("json-config", "raw", json.dumps({"accountSid": "AC" + rs(rng, HEX, 32), "authToken": t}), [(tw, t)])
    t = M[tw](rng)
    add("python", "json", f'account_sid = "AC{rs(rng, HEX, 32)}"\nauth_token = "{t}"', [(tw, t)])
    sid, t = "AC" + rs(rng, HEX, 32), M[tw](rng)
    add("curl", "raw", f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json "
                       f"--data-urlencode 'To=+15005550006' -u {sid}:{t}", [(tw, t)])
    sid, t = "AC" + rs(rng, HEX, 32), M[tw](rng)
    add("url", "result", f"GET https://{sid}:{t}@api.twilio.com/2010-04-01/Accounts/{sid}.json", [(tw, t)])
    t = M[tw](rng)
    add("js", "raw", f"const client = require('twilio')('AC{rs(rng, HEX, 32)}', '{t}');", [(tw, t)])
    t = M[tw](rng)
    add("yaml", "raw", f"sms:\n  account_sid: AC{rs(rng, HEX, 32)}\n  auth_token: {t}", [(tw, t)])
    k, sec = M["twilio-api-key"](rng), M["twilio-api-secret"](rng)
    add("env", "raw", f"TWILIO_API_KEY={k}\nTWILIO_API_SECRET={sec}\nTWILIO_ACCOUNT_SID=AC{rs(rng, HEX, 32)}",
        [("twilio-api-key", k), ("twilio-api-secret", sec)])
    k, sec = M["twilio-api-key"](rng), M["twilio-api-secret"](rng)
    add("python", "json", f"client = Client('{k}', '{sec}', 'AC{rs(rng, HEX, 32)}')",
        [("twilio-api-key", k), ("twilio-api-secret", sec)])
    k = M["twilio-api-key"](rng)
    add("yaml", "raw", f"twilio:\n  api_key_sid: {k}", [("twilio-api-key", k)])
    return cases


def hidden_style_negatives(rng: random.Random) -> list[dict]:
    """Hard negatives written with hidden_style_cases: what sits where those secrets sit and is not
    one (hashes, ids, SIDs on their own, URLs without a password, placeholders and empty values,
    the word "password" in prose, code that computes a password). Must come back unchanged."""
    sha = rs(rng, HEX, 40)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(120))).decode()
    texts: list[tuple[str, str]] = [
        # AWS-shaped values that are not secrets
        ("hash", f"The secret key is derived from commit {sha} at build time."),
        ("hash", f"| aws_secret_access_key | {'*' * 40} |"),
        ("placeholder", "AWS Secret Access Key [None]: \nDefault region name [None]: eu-west-1"),
        ("placeholder", "AWS Secret Access Key [****************wK9e]: \nDefault region name [eu-west-1]: "),
        ("placeholder", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}"),
        ("hash", f"Secret access key rotation: last rotated by {sha}"),
        ("git", f"commit {sha}\nAuthor: Ada <ada@acme.dev>\n\n    rotate the secret key"),
        ("hash", f"sha1 {rs(rng, HEX, 40)}  s3://acme/secret-key-backup.tar"),
        ("base64", f"secret_key_image: data:image/png;base64,{png}"),
        # JWT-shaped values that are not tokens
        ("jwt-like", "eyJhbGciOiJIUzI1NiJ9 is the base64 of a JWT header"),
        ("jwt-like", "token: eyJ... (truncated)"),
        ("base64", "config: " + base64.b64encode(json.dumps({"name": "ada", "role": "admin", "x": 1}).encode()).decode()),
        # password: words, empty values, placeholders, code
        ("words", "Forgot your password? Reset it from the login page."),
        ("words", "Enter a password: the password must be at least 12 characters."),
        ("placeholder", 'password = ""'),
        ("placeholder", "DB_PASSWORD=\nDB_HOST=db"),
        ("placeholder", "password: <password>"),
        ("placeholder", "POSTGRES_PASSWORD=${POSTGRES_PASSWORD}"),
        ("placeholder", "password: '****'"),
        ("placeholder", "MYSQL_PWD=changeme"),
        ("code", "password = getpass.getpass()"),
        ("code", "user = User(name=name, password=make_password(raw_password))"),
        ("code", "conn = connect(host=h, password=pw, port=5432)"),
        ("code", "password = hash_pw(pw, salt)"),
        ("code", "pwd = os.getcwd()"),
        ("code", "final_token = token[:-1]"),
        ("code", "self._signing_key = key[:16]"),
        ("code", 'auth_token = b64encode(f"AWS:{password}".encode("ascii")).decode()'),
        ("code", "def login(self, user=None,\n          login=None, password=None):"),
        ("code", '    return ("basic", {"username": auth[0], "password": auth[1]})'),
        ("code", "password = bytearray(KEY_PASSWORD.encode())"),
        ("shell", "passwd:         files systemd\ngroup:          files systemd"),
        ("shell", "PWD=/home/ada/src/api\nOLDPWD=/home/ada"),
        # URLs without a password
        ("url", "https://ada@git.acme.dev/platform/api.git"),
        ("url", "http://localhost:4873/@acme/ui-kit/-/ui-kit-1.2.0.tgz"),
        ("url", "https://medium.com/@ada/notes-on-redaction-3f2a"),
        ("url", "https://registry.acme.dev:8443/v2/@scope/pkg/manifests/latest"),
        ("url", "postgres://app:${DB_PASSWORD}@db.internal:5432/app"),
        ("url", "postgres://app:<password>@db.internal:5432/app"),
        ("url", "mysql://root:****@localhost/app"),
        ("url", "http://[::1]:8080/health?from=ci@acme.dev"),
        # Terraform and Twilio look-alikes
        ("words", "Terraform Cloud tokens look like <14 chars>.atlasv1.<67 chars>."),
        ("ids", f"TWILIO_ACCOUNT_SID=AC{rs(rng, HEX, 32)}\nTWILIO_FROM=+15005550006"),
        ("placeholder", "TWILIO_AUTH_TOKEN=your_auth_token\nTWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ("hash", f"md5 {rs(rng, HEX, 32)}  SKILLS.md"),
        ("uuid", f"SKU-{uuid4(rng)} shipped"),
    ]
    return [{"context": c, "text": t} for c, t in texts]


def personal_cases(rng: random.Random) -> list[dict]:
    def luhn_complete(prefix: str, length: int) -> str:
        body = prefix + rs(rng, DIGITS, length - len(prefix) - 1)
        for d in DIGITS:
            cand = body + d
            total = 0
            for i, ch in enumerate(reversed(cand)):
                n = int(ch)
                if i % 2:
                    n = n * 2 - 9 if n * 2 > 9 else n * 2
                total += n
            if total % 10 == 0:
                return cand
        raise AssertionError

    def iban(cc: str, length: int) -> str:
        bban = rs(rng, DIGITS, length - 4)
        num = int("".join(str(int(c, 36)) for c in bban + cc + "00"))
        check = 98 - num % 97
        return f"{cc}{check:02d}{bban}"

    cases = []

    def add(ctx: str, text: str, labels: list[tuple[str, str]]) -> None:
        cases.append({"context": ctx, "text": text,
                      "labels": [{"class": c, "secret": s} for c, s in labels]})

    for _ in range(5):
        e = f"{rs(rng, LOWER, 6)}.{rs(rng, LOWER, 7)}@{rs(rng, LOWER, 8)}.com"
        add("email", f"Reply from {e} about invoice 42", [("email", e)])
    e = f"{rs(rng, LOWER, 8)}@{rs(rng, LOWER, 6)}.io"
    add("email", json.dumps({"to": [e], "subject": "hi"}), [("email", e)])
    e = f"{rs(rng, LOWER, 5)}+{rs(rng, LOWER, 4)}@mail.{rs(rng, LOWER, 6)}.org"
    add("email", json.dumps({"command": f"git config user.email\n{e}"}), [("email", e)])
    for fmt in ("+1 415 555 {a}", "+44 20 7946 {a}", "(212) 555-{a}", "646-555-{a}", "+49 30 901820{b}"):
        ph = fmt.format(a=rs(rng, DIGITS, 4), b=rs(rng, DIGITS, 2))
        add("phone", f"Call me at {ph} tomorrow", [("phone-number", ph)])
    for prefix, length, sep in (("4", 16, " "), ("51", 16, "-"), ("37", 15, ""), ("6011", 16, " ")):
        c = luhn_complete(prefix, length)
        shown = sep.join(c[i:i + 4] for i in range(0, len(c), 4)) if sep else c
        add("card", f"card_number: {shown} exp 04/27", [("card-number", shown)])
    for cc, ln in (("DE", 22), ("GB", 22), ("FR", 27), ("NL", 18)):
        ib = iban(cc, ln) if cc != "GB" else None
        if cc == "GB":
            bban = "NWBK" + rs(rng, DIGITS, 14)
            num = int("".join(str(int(ch, 36)) for ch in bban + "GB00"))
            ib = f"GB{98 - num % 97:02d}{bban}"
        spaced = " ".join(ib[i:i + 4] for i in range(0, len(ib), 4))
        add("iban", f"Please wire to IBAN {spaced} by Friday.", [("iban", spaced)])
    return cases


def main() -> None:
    rng = random.Random(SEED)
    positives = (specific_cases(rng) + vendor_cases(rng) + markup_cases(random.Random(MARKUP_SEED))
                 + name_value_cases(random.Random(PAIRS_SEED)) + trace_cases(random.Random(TRACE_SEED))
                 + trace_cases_more(random.Random(TRACE2_SEED)) + trace_cases_third(random.Random(TRACE3_SEED))
                 + hidden_style_cases(random.Random(HIDDEN_SEED)))
    for i, case in enumerate(positives):
        case["id"] = f"pos-{i:03d}"
    negatives = (negative_cases(rng) + [{"context": c, "text": t} for c, t in MARKUP_NEGATIVES + NAME_VALUE_NEGATIVES]
                 + trace_negative_cases(random.Random(TRACE_SEED + 1))
                 + trace_negative_cases_more(random.Random(TRACE3_SEED + 1))
                 + hidden_style_negatives(random.Random(HIDDEN_SEED + 1)))
    for i, case in enumerate(negatives):
        case["id"] = f"neg-{i:03d}"
    personal = personal_cases(rng)
    for i, case in enumerate(personal):
        case["id"] = f"pii-{i:03d}"

    def dump(path: Path, rows: list[dict], keys: tuple[str, ...]) -> None:
        with path.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({k: row[k] for k in keys if k in row}, ensure_ascii=False) + "\n")

    dump(POSITIVE, positives, ("id", "context", "encoding", "labels", "text"))
    dump(NEGATIVE, negatives, ("id", "context", "text"))
    dump(PERSONAL, personal, ("id", "context", "labels", "text"))
    classes = {lab["class"] for c in positives for lab in c["labels"]}
    print(f"{len(positives)} positives over {len(classes)} classes, {len(negatives)} negatives, "
          f"{len(personal)} personal")


if __name__ == "__main__":
    main()
