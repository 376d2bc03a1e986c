#!/usr/bin/env bash
# scripts/gateway-dev-keys.sh DIR — what app-gateway needs to serve HTTPS and prove
# users in development, laid out as docker compose (deploy/gateway/) and the local runner read it:
#
#   DIR/tls.crt, DIR/tls.key     a self-signed certificate for localhost and 127.0.0.1 (P-256, 365
#                                days) and its key (mode 0600): WIDGETBUS_GATEWAY_TLS_CERT and _KEY;
#                                clients trust the certificate itself (curl --cacert DIR/tls.crt)
#   DIR/dev-issuer.private.pem   a development issuer's signing key (mode 0600), for `widgetctl token mint`
#   DIR/dev-issuer.jwks.json     its public JWKS, which app-gateway checks tokens with
#   DIR/issuers.json             WIDGETBUS_GATEWAY_ISSUERS: trusts that issuer alone
#
# The issuer is https://dev.widgetbus.local, alias dev, audience widgetbus-app, ES256 only, so a
# token minted for subject alice acts for bus user dev:alice (docs/API.md, "The bus user id"):
#
#   kid=$(sed -n 's/.*"kid":"\([^"]*\)".*/\1/p' DIR/dev-issuer.jwks.json)
#   widgetctl token mint --key DIR/dev-issuer.private.pem --kid "$kid" \
#       --issuer https://dev.widgetbus.local --audience widgetbus-app --subject alice
#
# For development only: whoever holds DIR/dev-issuer.private.pem can act for any user, and the
# certificate is trusted by no one who was not handed it. Existing files are never replaced: the
# script refuses to run if any of the five is there (delete them to start over, which makes every
# token minted before invalid).
#
# Run it as yourself: the issuer's private key is read by `widgetctl token mint` on the host only.
# For docker compose, then give the TLS key to the image's user, which reads it from the folder
# compose mounts (uid 10001; the key stays readable by its owner alone):
#
#   scripts/gateway-dev-keys.sh deploy/gateway && sudo chown 10001 deploy/gateway/tls.key
#
# WIDGETCTL is the widgetctl to run (default: the debug build's).
set -euo pipefail

usage() { echo "usage: gateway-dev-keys.sh DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
dir="$1"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
widgetctl="${WIDGETCTL:-$repo_root/.build/debug/widgetctl}"
[ -x "$widgetctl" ] || { echo "gateway-dev-keys: $widgetctl not found (swift build, or set WIDGETCTL)" >&2; exit 2; }
command -v openssl >/dev/null || { echo "gateway-dev-keys: openssl not found" >&2; exit 2; }

issuer=https://dev.widgetbus.local
alias_name=dev
audience=widgetbus-app
name=dev-issuer

# All or nothing: a folder with some of the files is one someone set up by hand, and a new issuer
# key would silently invalidate the tokens minted from the old one.
for file in tls.crt tls.key "$name.private.pem" "$name.jwks.json" issuers.json; do
    if [ -e "$dir/$file" ]; then
        echo "gateway-dev-keys: $dir/$file exists; refusing to replace it (delete the folder's development keys to make new ones)" >&2
        exit 1
    fi
done

# The folder without write for group or others, whatever the caller's umask: app-gateway trusts
# whatever issuers.json and the JWKS beside it say.
umask 022
mkdir -p "$dir"
chmod 0755 "$dir"

# widgetctl creates both files exclusively (and the private key 0600) and prints the kid.
made=$("$widgetctl" token issuer --out "$dir" --name "$name")
kid=$(printf '%s' "$made" | sed -n 's/.*"kid":"\([^"]*\)".*/\1/p')
[ -n "$kid" ] || { echo "gateway-dev-keys: widgetctl token issuer printed no kid: $made" >&2; exit 1; }

# The certificate and key are made in a private folder and linked into place: `ln` fails rather
# than replace a file that appeared meanwhile, and the key is never readable by others, not even
# while openssl writes it.
staging=$(mktemp -d "$dir/.tls.XXXXXX")
trap 'rm -rf -- "$staging"' EXIT
(
    umask 077
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 365 -nodes \
        -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
        -keyout "$staging/tls.key" -out "$staging/tls.crt" 2>/dev/null
)
chmod 0644 "$staging/tls.crt"
chmod 0600 "$staging/tls.key"
ln "$staging/tls.crt" "$dir/tls.crt"
ln "$staging/tls.key" "$dir/tls.key"

# The issuers file app-gateway reads (Services/app-gateway/Gateway/Configuration/IssuersFile.swift);
# jwksFile is relative to this file's folder, so the folder can be mounted anywhere.
set -o noclobber
cat >"$dir/issuers.json" <<EOF
{"issuers": [
  {"issuer": "$issuer", "alias": "$alias_name", "audiences": ["$audience"],
   "algorithms": ["ES256"], "jwksFile": "$name.jwks.json"}
]}
EOF

echo "gateway-dev-keys: $dir/tls.crt and tls.key (CN=localhost, 127.0.0.1), issuer $issuer (alias $alias_name, audience $audience, kid $kid)"
echo "gateway-dev-keys: a token: widgetctl token mint --key $dir/$name.private.pem --kid $kid --issuer $issuer --audience $audience --subject SUBJECT"
