#!/bin/sh
# Generates webhook-vectors.json: signed webhook deliveries, good and bad, for every receiver's tests.
# Signatures come from `openssl dgst -sha256 -hmac`, an implementation independent of the Node code
# under test, so a shared misunderstanding cannot make both sides agree. Deterministic: fixed
# secrets, fixed clock, fixed bodies; running it again gives a byte-identical file.
# Usage: sh shared/test-vectors/generate.sh [output-file]   (default: webhook-vectors.json beside this script)
set -eu

command -v openssl >/dev/null 2>&1 || { echo "generate.sh: openssl is required" >&2; exit 1; }

DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-"$DIR/webhook-vectors.json"}

# The receiver's clock for every case: 2026-01-15T10:00:00Z.
NOW=1768471200
# Test-only secrets (never real ones); the receiver holds SECRET (and OLD_SECRET during rotation).
SECRET=whsec_vectors_primary_5f2a9c0e7b4d4e18a3c6
OLD_SECRET=whsec_vectors_rotated_0c9e41d7a2b85f63d1e4
WRONG_SECRET=whsec_vectors_attacker_9a7b3c1d5e6f8a0b2c4d

JOB=job_7f3c2a9e41b84d05
JOB_FAILED=job_c41d0b7e9a2f6318
VERDICTS='{"valid":1,"invalid":2,"catch_all":1,"risky":1,"role_based":1,"disposable":1,"unknown":1}'
COMPLETED='{"event":"job.completed","job_id":"'$JOB'","status":"completed","total_emails":8,"processed_emails":8,"verdicts":'$VERDICTS',"created_at":"2026-01-15T09:30:00Z","completed_at":"2026-01-15T09:59:55Z","results_url":"/v1/jobs/'$JOB'/results"}'
FAILED='{"event":"job.failed","job_id":"'$JOB_FAILED'","status":"failed","total_emails":8,"processed_emails":3,"verdicts":{"valid":1,"invalid":0,"catch_all":1,"risky":0,"role_based":1,"disposable":0,"unknown":0},"created_at":"2026-01-15T09:58:00Z","completed_at":"2026-01-15T09:59:55Z","results_url":"/v1/jobs/'$JOB_FAILED'/results","error":"Verification stopped early: the verification cluster became unavailable."}'
# The same message as COMPLETED, re-serialized with other whitespace (same JSON value, other bytes).
COMPLETED_PRETTY='{
  "event": "job.completed",
  "job_id": "'$JOB'",
  "status": "completed",
  "total_emails": 8,
  "processed_emails": 8,
  "verdicts": {"valid": 1, "invalid": 2, "catch_all": 1, "risky": 1, "role_based": 1, "disposable": 1, "unknown": 1},
  "created_at": "2026-01-15T09:30:00Z",
  "completed_at": "2026-01-15T09:59:55Z",
  "results_url": "/v1/jobs/'$JOB'/results"
}'
# One byte changed: processed_emails 8 -> 9.
COMPLETED_TAMPERED=$(printf '%s' "$COMPLETED" | sed 's/"processed_emails":8/"processed_emails":9/')

# sign SECRET TIMESTAMP BODY -> lowercase hex HMAC-SHA256 of "<timestamp>.<body>"
sign() {
  printf '%s.%s' "$2" "$3" | openssl dgst -sha256 -hmac "$1" | sed 's/^.*= *//' | tr -d '\n'
}

# JSON string literal of $1 (escapes backslash, quote, tab and newline; the bodies hold no other control characters).
json_str() {
  printf '"'
  printf '%s' "$1" | awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); if (NR > 1) print "\\n"; print }'
  printf '"'
}

upper() { printf '%s' "$1" | tr 'a-f' 'A-F'; }

FIRST=1
exec 3>"$OUT.tmp"
printf '[\n' >&3

# emit NAME SECRETS_JSON HEADERS_JSON RAW_BODY EXPECT REASON DESCRIPTION
emit() {
  if [ "$FIRST" -eq 1 ]; then FIRST=0; else printf ',\n' >&3; fi
  printf '  {\n    "name": "%s",\n    "description": %s,\n    "secrets": %s,\n    "headers": %s,\n    "rawBody": %s,\n    "now": %s,\n    "expect": "%s"' \
    "$1" "$(json_str "$7")" "$2" "$3" "$(json_str "$4")" "$NOW" "$5" >&3
  if [ -n "$6" ]; then printf ',\n    "reason": "%s"' "$6" >&3; fi
  printf '\n  }' >&3
}

# headers EVENT JOB TIMESTAMP SIGNATURE_HEADER  (use the literal word OMIT to leave a header out)
headers() {
  h='{"Content-Type": "application/json", "User-Agent": "Service-Webhook/1", "X-Service-Event": "'$1'", "X-Service-Job": "'$2'"'
  if [ "$3" != OMIT ]; then h="$h"', "X-Service-Timestamp": '$(json_str "$3"); fi
  if [ "$4" != OMIT ]; then h="$h"', "X-Service-Signature": '$(json_str "$4"); fi
  printf '%s}' "$h"
}

ONE='["'$SECRET'"]'
ROTATION='["'$SECRET'", "'$OLD_SECRET'"]'
TS=$((NOW - 5))
GOOD=$(sign "$SECRET" "$TS" "$COMPLETED")
BAD=$(sign "$WRONG_SECRET" "$TS" "$COMPLETED")

emit valid_completed "$ONE" "$(headers job.completed $JOB $TS "v1=$GOOD")" "$COMPLETED" accept "" \
  "A job.completed delivery signed 5 s before the receiver's clock."
emit valid_failed "$ONE" "$(headers job.failed $JOB_FAILED $TS "v1=$(sign "$SECRET" "$TS" "$FAILED")")" "$FAILED" accept "" \
  "A job.failed delivery (status failed, error set)."
emit valid_lowercase_header_names "$ONE" \
  '{"content-type": "application/json", "user-agent": "Service-Webhook/1", "x-service-event": "job.completed", "x-service-job": "'$JOB'", "x-service-timestamp": "'$TS'", "x-service-signature": "v1='$GOOD'"}' \
  "$COMPLETED" accept "" "Header names as Node's http module delivers them (lower case); header lookup is case-insensitive."
emit rotation_signed_with_new_secret "$ROTATION" "$(headers job.completed $JOB $TS "v1=$GOOD")" "$COMPLETED" accept "" \
  "Receiver holds the new and the old secret during rotation; the message is signed with the new one."
emit rotation_signed_with_old_secret "$ROTATION" "$(headers job.completed $JOB $TS "v1=$(sign "$OLD_SECRET" "$TS" "$COMPLETED")")" "$COMPLETED" accept "" \
  "Receiver holds the new and the old secret; the message is signed with the old one (sent before the rotation took effect)."
emit tampered_body_one_byte "$ONE" "$(headers job.completed $JOB $TS "v1=$GOOD")" "$COMPLETED_TAMPERED" reject signature_mismatch \
  "Signed body changed by one byte in transit (processed_emails 8 -> 9)."
emit tampered_timestamp "$ONE" "$(headers job.completed $JOB $((TS + 1)) "v1=$GOOD")" "$COMPLETED" reject signature_mismatch \
  "Timestamp header changed by one second (still inside the window); the signature covers it."
emit wrong_secret "$ONE" "$(headers job.completed $JOB $TS "v1=$BAD")" "$COMPLETED" reject signature_mismatch \
  "Signed with a secret the receiver does not hold."
emit rotation_wrong_secret "$ROTATION" "$(headers job.completed $JOB $TS "v1=$BAD")" "$COMPLETED" reject signature_mismatch \
  "Receiver holds two secrets; the message is signed with neither."

for AGE in 300 301 3600; do
  T=$((NOW - AGE))
  if [ "$AGE" -le 300 ]; then EXP=accept; R=""; N=edge_exactly_300s_old; D="Timestamp exactly 300 s before the receiver's clock: inside the tolerance (reject only when more than 300 s away)."
  else EXP=reject; R=timestamp_too_old; N=stale_${AGE}s; D="Correctly signed, but the timestamp is $AGE s old (replay)."; fi
  emit "$N" "$ONE" "$(headers job.completed $JOB $T "v1=$(sign "$SECRET" "$T" "$COMPLETED")")" "$COMPLETED" "$EXP" "$R" "$D"
done
for AHEAD in 300 301 3600; do
  T=$((NOW + AHEAD))
  if [ "$AHEAD" -le 300 ]; then EXP=accept; R=""; N=edge_exactly_300s_ahead; D="Timestamp exactly 300 s after the receiver's clock: inside the tolerance."
  else EXP=reject; R=timestamp_in_future; N=future_${AHEAD}s; D="Correctly signed, but the timestamp is $AHEAD s in the future."; fi
  emit "$N" "$ONE" "$(headers job.completed $JOB $T "v1=$(sign "$SECRET" "$T" "$COMPLETED")")" "$COMPLETED" "$EXP" "$R" "$D"
done

emit missing_signature_header "$ONE" "$(headers job.completed $JOB $TS OMIT)" "$COMPLETED" reject missing_signature \
  "No X-Service-Signature header."
emit missing_timestamp_header "$ONE" "$(headers job.completed $JOB OMIT "v1=$GOOD")" "$COMPLETED" reject missing_timestamp \
  "No X-Service-Timestamp header."
emit malformed_timestamp_not_digits "$ONE" "$(headers job.completed $JOB "2026-01-15T09:59:55Z" "v1=$(sign "$SECRET" "2026-01-15T09:59:55Z" "$COMPLETED")")" "$COMPLETED" reject malformed_timestamp \
  "Timestamp is an ISO date, not Unix seconds (signed over that string, so only the format is wrong)."
emit malformed_timestamp_fraction "$ONE" "$(headers job.completed $JOB "$TS.5" "v1=$(sign "$SECRET" "$TS.5" "$COMPLETED")")" "$COMPLETED" reject malformed_timestamp \
  "Timestamp with a fraction; the header carries whole seconds (digits only)."
emit malformed_signature_no_prefix "$ONE" "$(headers job.completed $JOB $TS "$GOOD")" "$COMPLETED" reject malformed_signature \
  "The right hex, without the v1= prefix."
emit malformed_signature_non_hex "$ONE" "$(headers job.completed $JOB $TS "v1=$(printf '%s' "$GOOD" | sed 's/^........../zzzzzzzzzz/')")" "$COMPLETED" reject malformed_signature \
  "64 characters after v1=, not all hexadecimal."
emit malformed_signature_wrong_length "$ONE" "$(headers job.completed $JOB $TS "v1=$(printf '%s' "$GOOD" | cut -c1-62)")" "$COMPLETED" reject malformed_signature \
  "62 hex characters (31 bytes) instead of 64: a truncated signature."
emit malformed_signature_empty "$ONE" "$(headers job.completed $JOB $TS "")" "$COMPLETED" reject malformed_signature \
  "The header is present but empty."
emit malformed_signature_prefix_only "$ONE" "$(headers job.completed $JOB $TS "v1=")" "$COMPLETED" reject malformed_signature \
  "v1= with nothing after it."
emit signature_upper_case_hex "$ONE" "$(headers job.completed $JOB $TS "v1=$(upper "$GOOD")")" "$COMPLETED" reject malformed_signature \
  "The right HMAC in upper-case hex. The spec says lowercase hex; upper case is treated as malformed (see README)."
emit multiple_signatures_bad_then_good "$ONE" "$(headers job.completed $JOB $TS "v1=$BAD,v1=$GOOD")" "$COMPLETED" accept "" \
  "Two comma-separated v1 signatures; the second matches. Accept when any v1 signature matches (see README)."
emit multiple_signatures_good_then_bad_with_space "$ONE" "$(headers job.completed $JOB $TS "v1=$GOOD, v1=$BAD")" "$COMPLETED" accept "" \
  "Two v1 signatures separated by comma and space; the first matches. Whitespace around entries is ignored."
emit multiple_signatures_unknown_scheme_ignored "$ONE" "$(headers job.completed $JOB $TS "v2=$BAD,v1=$GOOD")" "$COMPLETED" accept "" \
  "An entry of an unknown scheme (v2=) is ignored; the v1 entry matches."
emit multiple_signatures_none_match "$ONE" "$(headers job.completed $JOB $TS "v1=$BAD,v1=$(sign "$OLD_SECRET" "$TS" "$COMPLETED")")" "$COMPLETED" reject signature_mismatch \
  "Two well-formed v1 signatures, neither made with a secret the receiver holds."
emit multiple_signatures_one_malformed "$ONE" "$(headers job.completed $JOB $TS "v1=$(upper "$GOOD"),v1=$GOOD")" "$COMPLETED" reject malformed_signature \
  "One v1 entry is malformed (upper case) next to a matching one: the whole header is malformed (no partial parsing)."
emit only_unknown_scheme "$ONE" "$(headers job.completed $JOB $TS "v2=$GOOD")" "$COMPLETED" reject malformed_signature \
  "No v1 entry at all: nothing this receiver can check."
emit body_reserialized_whitespace "$ONE" "$(headers job.completed $JOB $TS "v1=$GOOD")" "$COMPLETED_PRETTY" reject signature_mismatch \
  "The same JSON value re-serialized with other whitespace: the signature covers the raw bytes, so it no longer matches."
NOTJSON='job job_7f3c2a9e41b84d05 completed'
emit non_json_body_signed "$ONE" "$(headers job.completed $JOB $TS "v1=$(sign "$SECRET" "$TS" "$NOTJSON")")" "$NOTJSON" reject malformed_body \
  "Correctly signed, but the body is not JSON."
TRUNC='{"event":"job.completed","job_id":"'$JOB'"'
emit truncated_json_body_signed "$ONE" "$(headers job.completed $JOB $TS "v1=$(sign "$SECRET" "$TS" "$TRUNC")")" "$TRUNC" reject malformed_body \
  "Correctly signed, but the JSON is cut off."
emit json_array_body_signed "$ONE" "$(headers job.completed $JOB $TS "v1=$(sign "$SECRET" "$TS" "[]")")" "[]" reject malformed_body \
  "Correctly signed JSON that is not an object."

printf '\n]\n' >&3
exec 3>&-
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT"
