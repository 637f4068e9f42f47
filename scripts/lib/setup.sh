# Shared by the scripts: installs what a fresh Debian machine lacks and runs throwaway clusters.

need_root_for_apt() {
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null; then echo sudo; else
            echo "installing packages needs root (or sudo)" >&2; exit 1
        fi
    fi
}

install_system_packages() {
    local missing=()
    [ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
    [ -n "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null)" ] || missing+=(postgresql)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v python3 >/dev/null || missing+=(python3)
    # PNG share images: rsvg-convert, the font the images name, and Symbola for emoji in names
    # (without it an emoji is drawn as a box with its code).
    command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
    [ -n "$(ls /usr/share/fonts/truetype/ancient-scripts/Symbola* 2>/dev/null)" ] || missing+=(fonts-symbola)
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo; sudo=$(need_root_for_apt)
        echo "==> installing ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ! command -v swift >/dev/null; then
        echo "Swift 6 is required (https://www.swift.org/install/linux/); put it on the PATH" >&2
        exit 1
    fi
}

# Headless Chromium and its WebDriver, for the portal's real-browser test (Tests/Interop/portal_browser.py),
# and zbarimg, which reads back the QR codes the portal draws (Tests/SpotterCoreTests/QRCodeTests.swift).
install_browser_packages() {
    local missing=()
    command -v chromium >/dev/null || missing+=(chromium)
    command -v chromedriver >/dev/null || missing+=(chromium-driver)
    command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
    command -v zbarimg >/dev/null || missing+=(zbar-tools)
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo; sudo=$(need_root_for_apt)
        echo "==> installing ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# A virtual environment at $1 holding the packages of requirements file $2 (and the files it
# includes with -r) and nothing of the system's Python; reinstalled whenever those files change.
python_venv() {
    local venv=$1 requirements=$2 dir files stamp
    dir=$(dirname "$requirements")
    files=("$requirements")
    while read -r included; do files+=("$dir/$included"); done < <(sed -n 's/^-r[[:space:]]*//p' "$requirements")
    stamp=$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)
    [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$stamp" ] && return 0
    echo "==> installing $(grep -h -v -E '^(#|-r|$)' "${files[@]}" | tr '\n' ' ')into $venv"
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        # Debian's own python3 creates virtual environments only with python3-venv (ensurepip).
        local sudo; sudo=$(need_root_for_apt)
        echo "==> installing python3-venv"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
        rm -rf "$venv"
        python3 -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
    echo "$stamp" > "$venv/.requirements"
}

postgres_bin_dir() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

ensure_postgres_user() {
    id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
}

# A throwaway PostgreSQL cluster in a new directory /tmp/PREFIX.XXXXXX, reachable only on a unix
# socket in that directory. As root its files belong to, and the server runs as, `postgres`
# (PostgreSQL refuses to run as root). Sets `cluster`, `pg_bin` and `run_as_pg`.
make_cluster_dir() {
    pg_bin=$(postgres_bin_dir)
    cluster=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 755 "$cluster"
    run_as_pg=()
    if [ "$(id -u)" = 0 ]; then
        ensure_postgres_user
        chown postgres:postgres "$cluster"
        run_as_pg=(runuser -u postgres --)
    fi
}

# initdb and start the cluster of make_cluster_dir on port $1 with extra server options $2.
start_cluster() {
    # Byte-order sorting, Unicode letters (lower() and ILIKE fold É and Ж too) where the system has C.UTF-8,
    # as spotterd's embedded cluster (Sources/SpotterSetup/EmbeddedPostgres.swift).
    local ctype=()
    locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' && ctype=(--lc-ctype=C.UTF-8)
    "${run_as_pg[@]}" "$pg_bin/initdb" -D "$cluster/data" -U postgres --auth=trust -E UTF8 --locale=C "${ctype[@]}" >/dev/null
    "${run_as_pg[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -l "$cluster/postgres.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$cluster' -c port=$1 ${2:-}" start >/dev/null
}

# Stops the cluster (shutdown mode $1, default fast) and removes its directory.
stop_cluster() {
    "${run_as_pg[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -m "${1:-fast}" -w stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}
