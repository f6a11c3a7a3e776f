# Shared helpers for the reference agents: sourced, not run.

# preflight exits 0 when every named variable is set, 1 (naming the first
# missing one) when not. Reference agents call it when POME_PREFLIGHT=1.
preflight() {
	for v in "$@"; do
		eval "val=\${$v:-}"
		if [ -z "$val" ]; then
			echo "preflight: $v is not set" >&2
			exit 1
		fi
	done
	command -v curl >/dev/null || { echo "preflight: curl is not installed" >&2; exit 1; }
	exit 0
}

# api METHOD URL TOKEN [curl args…] calls a twin and prints the response;
# on an HTTP error it prints the response to stderr (stderr.log of the run)
# and fails.
api() {
	method=$1 url=$2 token=$3
	shift 3
	if ! out=$(curl -sS --fail-with-body -X "$method" "$url" -H "Authorization: Bearer $token" "$@"); then
		echo "$method $url failed: $out" >&2
		return 1
	fi
	printf '%s\n' "$out"
}

# json_api METHOD URL TOKEN JSON sends a JSON body.
json_api() {
	api "$1" "$2" "$3" -H 'Content-Type: application/json' -d "$4"
}

# json_field NAME prints the first string value of "NAME" in the JSON on
# stdin (enough for ids; the agents avoid needing jq).
json_field() {
	tr -d '\n' | grep -o "\"$1\": *\"[^\"]*\"" | head -n 1 | sed 's/.*: *"\([^"]*\)"/\1/'
}
