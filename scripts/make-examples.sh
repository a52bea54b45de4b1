#!/bin/sh
# Regenerates the example PKI under Examples/: a root and an intermediate valid for 30 years, and a leaf for
# www.example.test valid for 825 days, the longest Apple allows a TLS server certificate (AppleValidityPeriodRule): a
# 30-year leaf is refused. The example packages evaluate at a fixed time inside the leaf's life, so they keep working
# after it ends. Private keys are not kept; the SPKI pins in Examples/VerifyChain and Examples/PinMigration change.
set -eu
cd "$(dirname "$0")/../Examples"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/$1.key"; }
key root; key int; key leaf
openssl req -x509 -new -key "$tmp/root.key" -sha256 -days 10950 -subj "/O=swift-transport-security example/CN=Example Root CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" -out root.pem
cat > "$tmp/int.ext" <<X
basicConstraints=critical,CA:TRUE,pathlen:0
keyUsage=critical,keyCertSign,cRLSign
extendedKeyUsage=serverAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
X
openssl req -new -key "$tmp/int.key" -subj "/O=swift-transport-security example/CN=Example Issuing CA" -out "$tmp/int.csr"
openssl x509 -req -in "$tmp/int.csr" -CA root.pem -CAkey "$tmp/root.key" -CAcreateserial -days 10950 -sha256 \
  -extfile "$tmp/int.ext" -out "$tmp/int.pem"
cat > "$tmp/leaf.ext" <<X
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:www.example.test,DNS:example.test
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
X
openssl req -new -key "$tmp/leaf.key" -subj "/CN=www.example.test" -out "$tmp/leaf.csr"
openssl x509 -req -in "$tmp/leaf.csr" -CA "$tmp/int.pem" -CAkey "$tmp/int.key" -CAcreateserial -days 825 -sha256 \
  -extfile "$tmp/leaf.ext" -out "$tmp/leaf.pem"
cat "$tmp/leaf.pem" "$tmp/int.pem" > chain.pem
rm -f root.srl
