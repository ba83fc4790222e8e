#!/usr/bin/env bash
# The project's headline figures, each beside its anchor or target in the
# same run, as a Markdown table for docs/performance.md (on stdout; progress
# on stderr).
#
#   benches/headline.sh [--pairs N] [--wrk-runs N] [--json-runs N]
#                       [--python-runs N] [--site-runs N]
#                       [--bsquare-src DIR] [--long]
#
# 1. British Square 5x5, one thread: CPU (user + system) of
#    `generator -q --threads 1`, solving and writing the file, against
#    `bsquare` of skeeto/british-square (gcc -O3 -march=native -DBENCHMARK:
#    solve only), run by turns, N pairs (--pairs, default 5), medians.
# 2. Python `db.values` over one million random positions (median of
#    --python-runs, default 5), from the venv target/python-venv (made as
#    tests/run makes it when missing or older than the sources).
# 3. `query serve` under wrk (-t2 -c64 -d8s): random positions
#    (benches/http_position.lua) and the fixed start position, by turns,
#    --wrk-runs runs each (default 3), medians.
# 4. `query --json -` over the million positions (hyperfine when
#    installed, --json-runs runs, default 5), median.
# 5. The static explorer (web/build-site, served by nginx) through a proxy
#    that delays each request by 100 ms, in a fresh headless Chromium: the
#    time from navigation to the first answer shown, median of
#    --site-runs (default 3), against the target of 1.5 s. It runs the
#    browser test that measures it (tests/browser/test_static_site.py::
#    test_through_a_slow_proxy, which holds the bytes read, not the time)
#    with the release binaries, in tests/run's venv (target/python-venv),
#    with Chromium, ChromeDriver and nginx as tests/run installs them.
# 6. With --long: the time `generator --game connect-four` and
#    `generator --game dandelions` announce against their wall time.
#
# The anchor's source: --bsquare-src DIR or BSQUARE_SRC=DIR, a source
# directory (with bsquare.c), a clone, or a bare git directory (its HEAD is
# built); otherwise a clone cached in target/headline/british-square, made
# with `git clone` when missing. Without any, its row says so and the other
# figures are measured all the same. wrk and hyperfine are installed with
# apt-get when missing (as root). Everything is built and written under
# target/headline/ (CARGO_TARGET_DIR is honoured); nothing of the anchor is
# kept in the repository. Default mode: 2 to 3 minutes on 2 cores once
# built (up to 5 on a busy machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

pairs=${PAIRS:-5}
wrk_runs=${WRK_RUNS:-3}
json_runs=${JSON_RUNS:-5}
python_runs=${PYTHON_RUNS:-5}
site_runs=${SITE_RUNS:-3}
bsquare_src=${BSQUARE_SRC:-}
long=0
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case $1 in
        --pairs) pairs=${2:?--pairs needs a value}; shift 2 ;;
        --wrk-runs) wrk_runs=${2:?--wrk-runs needs a value}; shift 2 ;;
        --json-runs) json_runs=${2:?--json-runs needs a value}; shift 2 ;;
        --python-runs) python_runs=${2:?--python-runs needs a value}; shift 2 ;;
        --site-runs) site_runs=${2:?--site-runs needs a value}; shift 2 ;;
        --bsquare-src) bsquare_src=${2:?--bsquare-src needs a value}; shift 2 ;;
        --long) long=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "headline: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$pairs" "$wrk_runs" "$json_runs" "$python_runs" "$site_runs"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "headline: a count must be a positive number, not '$n'" >&2; exit 2; }
done

say() { echo "headline: $*" >&2; }
target=${CARGO_TARGET_DIR:-$root/target}
release=$target/release
work=$target/headline
mkdir -p "$work"
run=$(mktemp -d "$work/run.XXXXXX")
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The median of the numbers on stdin, one a line.
median() {
    sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# "WALL USER SYS" of a command (seconds), its output to $run/out.log.
timed() {
    local TIMEFORMAT='%3R %3U %3S'
    { time "$@" >>"$run/out.log" 2>&1; } 2>&1
}
# Installs a Debian package (as root only; true when it worked), saying
# what it installs and upgrades (tests/apt-install).
ensure_package() {
    "$root/tests/apt-install" headline "$1"
}
# True when the command is there, after installing its package when missing.
ensure() {
    command -v "$1" >/dev/null || ensure_package "$1" || true
    command -v "$1" >/dev/null
}
# Arithmetic on the measurements: the value of an awk expression, as a plain
# decimal number (no exponent), or rounded to $2 places.
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }
fmt() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
# 1234567 -> 1,234,567
commas() {
    awk -v x="$1" 'BEGIN { s = sprintf("%.0f", x); r = ""
        while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
        print s r }'
}
# "pass" when the awk condition holds, else "**fail**".
verdict() { if awk "BEGIN { exit !($1) }"; then echo pass; else echo "**fail**"; fi; }
# The same for an aim: "met" or "not met".
aim() { if awk "BEGIN { exit !($1) }"; then echo met; else echo "not met"; fi; }

# "1 run", "5 runs"
runs() { if [ "$1" = 1 ]; then echo "1 run"; else echo "$1 runs"; fi; }

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if commit=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD || commit="$commit (with uncommitted changes)"
else
    commit="(not a git checkout)"
fi
say "${cpu:-unknown CPU}, $cores cores; work directory $work"

say "building the release binaries (cargo build --release)"
cargo build -q --release --locked -p generator -p query
cargo build -q --release --locked -p boardsolve --example random_positions
generator=$release/generator
query=$release/query

# ---- 1. British Square 5x5, one thread, against bsquare -------------------
anchor_note=
anchor_dir=$work/bsquare
bsquare=
bsquare_rev=
build_bsquare() { # $1: a directory holding bsquare.c
    gcc -O3 -march=native -DBENCHMARK -o "$1/bsquare" "$1/bsquare.c" >&2 && bsquare=$1/bsquare
}
export_git() { # $1: a git directory (bare or .git); exports HEAD to $anchor_dir
    mkdir -p "$anchor_dir" &&
        git --git-dir="$1" archive HEAD | tar -x -C "$anchor_dir" &&
        bsquare_rev=$(git --git-dir="$1" rev-parse --short HEAD)
}
if ! command -v gcc >/dev/null; then
    anchor_note="gcc not found (apt-get install gcc)"
else
    src=$bsquare_src
    if [ -z "$src" ]; then
        src=$work/british-square
        if [ ! -d "$src/.git" ]; then
            say "cloning skeeto/british-square into $src"
            rm -rf "$src"
            GIT_TERMINAL_PROMPT=0 timeout 120 git clone -q https://github.com/skeeto/british-square "$src" >&2 ||
                { rm -rf "$src"; src=; anchor_note="git clone of github.com/skeeto/british-square failed; give its source with BSQUARE_SRC=DIR or --bsquare-src DIR"; }
        fi
    fi
    rm -rf "$anchor_dir"
    if [ -n "$src" ]; then
        if [ -f "$src/bsquare.c" ]; then
            mkdir -p "$anchor_dir" && cp "$src/bsquare.c" "$anchor_dir/"
            bsquare_rev="source in $src"
            if [ -e "$src/.git" ]; then
                bsquare_rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "$bsquare_rev")
            fi
        elif git --git-dir="$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
            export_git "$src" || true
        elif [ -d "$src/.git" ]; then
            export_git "$src/.git" || true
        fi
        if [ ! -f "$anchor_dir/bsquare.c" ]; then
            anchor_note="no bsquare.c in $src (a source directory, a clone or a bare git directory of skeeto/british-square)"
        elif ! build_bsquare "$anchor_dir"; then
            anchor_note="bsquare.c of $src did not build with gcc -O3 -march=native -DBENCHMARK"
        fi
    fi
fi
[ -z "$anchor_note" ] || say "anchor unavailable: $anchor_note"

: >"$run/ours" && : >"$run/anchor"
for i in $(seq "$pairs"); do
    say "British Square, pair $i of $pairs"
    rm -f "$run/bsq.db"
    t=$(timed "$generator" -q --threads 1 --output "$run/bsq.db") || { cat "$run/out.log" >&2; exit 1; }
    echo "$t" >>"$run/ours"
    say "  generator: wall, user, system $t"
    if [ -n "$bsquare" ]; then
        if t=$(timed "$bsquare"); then
            echo "$t" >>"$run/anchor"
            say "  bsquare:   wall, user, system $t"
        else
            anchor_note="bsquare failed: $(tail -1 "$run/out.log")"
            bsquare=
        fi
    fi
done
mv "$run/bsq.db" "$work/bsq.db"
db=$work/bsq.db
ours_cpu=$(awk '{ print $2 + $3 }' "$run/ours" | median)
ours_user=$(awk '{ print $2 }' "$run/ours" | median)
ours_wall=$(awk '{ print $1 }' "$run/ours" | median)
what="British Square 5x5: solve and write the database, one thread, CPU (user + system), $(runs "$pairs") by turns with the anchor, medians"
ours="$(fmt "$ours_cpu") s (user $(fmt "$ours_user") s; wall $(fmt "$ours_wall") s)"
if [ -n "$bsquare" ] && [ -s "$run/anchor" ]; then
    anchor_cpu=$(awk '{ print $2 + $3 }' "$run/anchor" | median)
    ratio=$(calc "$ours_cpu / $anchor_cpu")
    row "$what" "$ours" \
        "\`bsquare\` (skeeto/british-square $bsquare_rev, \`gcc -O3 -march=native -DBENCHMARK\`, solve only): $(fmt "$anchor_cpu") s" \
        "**$(fmt "$ratio" 3)x**: target at most 0.2x: $(verdict "$ratio <= 0.2"); aim 0.07x: $(aim "$ratio <= 0.07")"
else
    row "$what" "$ours" "anchor unavailable: $anchor_note" "target at most 0.2x: not measured"
fi

# ---- the positions ---------------------------------------------------------
say "one million random positions (random_positions 1000000 7)"
"$release/examples/random_positions" 1000000 7 >"$work/pos1m.txt"
pos1m=$work/pos1m.txt
n_pos=$(wc -l <"$pos1m")
url_encode() {
    if command -v python3 >/dev/null; then
        python3 -c 'import sys, urllib.parse; [print(urllib.parse.quote(l.rstrip("\n"), safe="")) for l in sys.stdin]'
    else
        sed 's/%/%25/g; s#/#%2F#g; s/ /%20/g'
    fi
}
head -n 100000 "$pos1m" | url_encode >"$work/pos100k.url"

# ---- 2. Python values ------------------------------------------------------
venv=${PYTHON_VENV:-$root/target/python-venv}
python_note=
python_ready() {
    "$venv/bin/python" -c 'import boardsolve, numpy' 2>/dev/null || return 1
    # Installed after the last change to the package's or the library's sources.
    local so
    so=$("$venv/bin/python" -c 'import boardsolve._boardsolve as m; print(m.__file__)' 2>/dev/null) || return 1
    [ -z "$(find python/src python/boardsolve python/Cargo.toml python/pyproject.toml src Cargo.toml -newer "$so" -print -quit 2>/dev/null)" ]
}
if ! python_ready; then
    say "building the Python package into $venv (as tests/run does)"
    command -v python3 >/dev/null || ensure python3 || true
    python3 -c 'import venv, ensurepip' 2>/dev/null || ensure_package python3-venv || true
    if [ ! -x "$venv/bin/python" ]; then
        { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q --upgrade pip; } >&2 || true
    fi
    { "$venv/bin/python" -m pip install -q "maturin>=1.9,<2" "numpy>=1.21" &&
        "$venv/bin/python" -m pip install -q ./python; } >&2 ||
        python_note="the Python package did not build (python3 -m venv $venv; pip install maturin numpy ./python)"
fi
what="Python \`db.values\` over $(commas "$n_pos") random positions (two NumPy arrays), median of $(runs "$python_runs")"
if [ -z "$python_note" ]; then
    say "Python values, $(runs "$python_runs")"
    secs=$("$venv/bin/python" - "$db" "$pos1m" "$python_runs" <<'EOF' || echo failed
import statistics, sys, time
import boardsolve
db = boardsolve.open(sys.argv[1])
positions = open(sys.argv[2]).read().splitlines()
db.values(positions)  # once unmeasured: the file's pages mapped in
times = []
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    values, remoteness = db.values(positions)
    times.append(time.perf_counter() - start)
    assert len(values) == len(positions)
print(statistics.median(times))
EOF
    )
    [ "$secs" != failed ] || python_note="the Python measurement failed (see above)"
fi
if [ -z "$python_note" ]; then
    rate=$(calc "$n_pos / $secs")
    row "$what" "$(fmt "$secs" 3) s: **$(fmt "$rate / 1e6")M a second**" "target: at least 2M a second" \
        "$(fmt "$rate / 2e6")x the target: $(verdict "$rate >= 2e6")"
else
    row "$what" "not measured" "target: at least 2M a second" "$python_note"
fi

# ---- 3. query serve under wrk ---------------------------------------------
what_random="\`query serve\`, \`GET /api/position\` of random positions (\`wrk -t2 -c64 -d8s\`, benches/http_position.lua over pos100k.url), medians of $(runs "$wrk_runs")"
what_start="\`query serve\`, \`GET /api/position?p=start\` (the same load, one position), medians of $(runs "$wrk_runs")"
http_target="target: at least 30,000 a second, 99th percentile under 5 ms"
if ensure wrk; then
    "$query" --db "$db" serve --addr 127.0.0.1:0 >"$run/serve.out" 2>"$run/serve.err" &
    server=$!
    for _ in $(seq 100); do
        [ -s "$run/serve.out" ] && break
        sleep 0.1
    done
    addr=$(sed -n 's/^listening on //p' "$run/serve.out")
    [ -n "$addr" ] || { say "query serve did not start: $(cat "$run/serve.err")"; exit 1; }
    : >"$run/wrk.random" && : >"$run/wrk.start"
    # Requests a second, the 99th percentile (ms) and the failures of one run.
    wrk_run() { # $1: where to append; the rest: wrk's arguments
        local out=$1
        shift
        wrk -t2 -c64 -d8s --latency "$@" >"$run/wrk.txt"
        awk '/^Requests\/sec:/ { rps = $2 }
             $1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                           p99 = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : (u == "m") ? v * 60000 : v }
             /Non-2xx/ { bad += $NF } /Socket errors/ { bad += 1 }
             END { print rps, p99, bad + 0 }' "$run/wrk.txt" >>"$out"
        say "  $(basename "$out" | sed 's/^wrk\.//'): requests a second, 99th percentile (ms), failures: $(tail -1 "$out")"
    }
    for i in $(seq "$wrk_runs"); do
        say "wrk, run $i of $wrk_runs (2 x 8 s)"
        POSITIONS=$work/pos100k.url wrk_run "$run/wrk.random" -s "$root/benches/http_position.lua" "$addr"
        wrk_run "$run/wrk.start" "$addr/api/position?p=start"
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
    for kind in random start; do
        rps=$(awk '{ print $1 }' "$run/wrk.$kind" | median)
        p99=$(awk '{ print $2 }' "$run/wrk.$kind" | median)
        bad=$(awk '{ s += $3 } END { print s + 0 }' "$run/wrk.$kind")
        figure="**$(commas "$rps") a second**, 99th percentile $(fmt "$p99") ms"
        [ "$bad" = 0 ] || figure="$figure ($bad non-2xx answers or socket errors)"
        v=$(verdict "$rps >= 30000 && $p99 < 5 && $bad == 0")
        [ $kind = random ] && w=$what_random || w=$what_start
        row "$w" "$figure" "$http_target" "$(fmt "$rps / 30000")x the rate, $(fmt "$p99 / 5")x the latency bound: $v"
    done
else
    note="wrk not installed (apt-get install wrk, as root)"
    row "$what_random" "not measured" "$http_target" "$note"
    row "$what_start" "not measured" "$http_target" "$note"
fi

# ---- 4. query --json - -----------------------------------------------------
say "query --json - over the million positions, $(runs "$json_runs")"
cmd="$query --db $db --json - < $pos1m > /dev/null"
if ensure hyperfine; then
    hyperfine -w 1 -r "$json_runs" --style none --export-csv "$run/hf.csv" "$cmd" >&2
    secs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "median") c = i } NR == 2 { print $c }' "$run/hf.csv")
    how="\`hyperfine -w 1 -r $json_runs\`"
else
    say "hyperfine not installed (apt-get install hyperfine): timing with bash"
    bash -c "$cmd"
    for _ in $(seq "$json_runs"); do
        timed bash -c "$cmd" | awk '{ print $1 }' >>"$run/json"
    done
    secs=$(median <"$run/json")
    how=$(runs "$json_runs")
fi
rate=$(calc "$n_pos / $secs")
row "\`query --json - < pos1m.txt > /dev/null\`: full JSON answers, wall time, median of $how" \
    "$(fmt "$secs") s: **$(fmt "$rate / 1e6")M answers a second**" "aim: 2M a second" \
    "$(fmt "$rate / 2e6")x the aim: $(aim "$rate >= 2e6")"

# ---- 5. the static explorer through a slow proxy ---------------------------
what="The static explorer through a proxy adding 100 ms to each request: navigation to the first answer, a fresh headless Chromium each run, median of $(runs "$site_runs")"
site_target="target: at most 1.5 s"
site_note=
chromium=${BOARDSOLVE_CHROMIUM:-/usr/bin/chromium}
chromedriver=${BOARDSOLVE_CHROMEDRIVER:-/usr/bin/chromedriver}
nginx=${BOARDSOLVE_NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
for tool in "$chromium" "$chromedriver" "$nginx"; do
    [ -x "$tool" ] || site_note="$tool not found (tests/run installs Chromium, ChromeDriver and nginx)"
done
if [ -z "$site_note" ] && ! "$venv/bin/python" -c 'import pytest, selenium' 2>/dev/null; then
    "$venv/bin/python" -m pip install -q pytest "selenium>=4.11,<5" >&2 ||
        site_note="pytest and selenium did not install into $venv"
fi
if [ -z "$site_note" ]; then
    : >"$run/site"
    for i in $(seq "$site_runs"); do
        say "the static explorer through the slow proxy, run $i of $site_runs"
        rm -f "$root/target/static-site-figures.json"
        if ! BOARDSOLVE_BIN=$release BOARDSOLVE_CHROMIUM=$chromium BOARDSOLVE_CHROMEDRIVER=$chromedriver \
            BOARDSOLVE_NGINX=$nginx "$venv/bin/python" -m pytest -q -p no:cacheprovider \
            "tests/browser/test_static_site.py::test_through_a_slow_proxy" >"$run/site.log" 2>&1; then
            cat "$run/site.log" >&2
            site_note="the browser run failed (see above)"
            break
        fi
        first=$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["first_answer_s"])' \
            "$root/target/static-site-figures.json")
        say "  first answer after $first s"
        echo "$first" >>"$run/site"
    done
fi
if [ -z "$site_note" ]; then
    first=$(median <"$run/site")
    row "$what" "**$(fmt "$first") s** (runs: $(paste -sd' ' "$run/site"))" "$site_target" \
        "$(fmt "$first / 1.5")x the target: $(verdict "$first <= 1.5")"
else
    row "$what" "not measured" "$site_target" "$site_note"
fi

# ---- 6. --long: the generator's estimates ---------------------------------
to_seconds() { # "about 1m 15s", "44s", "1h 39m"
    awk '{ s = 0; for (i = 1; i <= NF; i++) { v = $i + 0; u = $i; sub(/^[0-9.]+/, "", u);
           s += (u == "h") ? v * 3600 : (u == "m") ? v * 60 : (u == "s") ? v : 0 } print s }' <<<"$1"
}
if [ "$long" = 1 ]; then
    for game in connect-four dandelions; do
        say "generator --game $game (--long)"
        rm -f "$run/long.db"
        : >"$run/out.log"
        t=$(timed "$generator" --game "$game" -o "$run/long.db") || { cat "$run/out.log" >&2; exit 1; }
        rm -f "$run/long.db"
        wall=${t%% *}
        cpu_s=$(awk '{ print $2 + $3 }' <<<"$t")
        line=$(grep -m1 'expect about' "$run/out.log" || true)
        said=$(sed -n 's/.*expect about \(.*\) on [0-9]* thread.*/\1/p' <<<"$line")
        what="\`generator --game $game\`: wall time against its announced estimate"
        if [ -n "$said" ]; then
            est=$(to_seconds "$said")
            said_cpu=$(sed -n 's/.*(\(.*\) of CPU).*/\1/p' <<<"$line")
            ratios="wall $(fmt "$wall / $est")x the announced"
            [ -z "$said_cpu" ] || ratios="$ratios, CPU $(fmt "$cpu_s / $(to_seconds "$said_cpu")")x"
            row "$what" "$(fmt "$wall" 1) s wall, $(fmt "$cpu_s" 1) s of CPU" \
                "announced: about $said (${said_cpu:-?} of CPU)" "$ratios"
        else
            row "$what" "$(fmt "$wall" 1) s wall, $(fmt "$cpu_s" 1) s of CPU" "no estimate announced" "-"
        fi
    done
fi

# ---- the table -------------------------------------------------------------
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
echo "**Machine:** ${cpu:-unknown CPU}, $cores cores, $mem, Linux $(uname -r); load average $load_start at the start, $load_end at the end."
echo "boardsolve $commit, $(rustc --version 2>/dev/null || echo 'rustc unknown'); \`benches/headline.sh\`$([ "$long" = 1 ] && echo ' --long'), $(date -u +%Y-%m-%d)."
echo
echo "| what | figure | anchor or target | ratio, verdict |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
