# Shared by scripts/run.sh and scripts/test.sh: installs what a fresh Debian machine lacks.

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
    python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
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

install_python_packages() {
    if ! python3 -c 'import grpc, grpc_tools, aiosmtpd' 2>/dev/null; then
        echo "==> installing grpcio, grpcio-tools and aiosmtpd"
        python3 -m pip install -q grpcio grpcio-tools aiosmtpd 2>/dev/null \
            || python3 -m pip install -q --break-system-packages grpcio grpcio-tools aiosmtpd
    fi
}

postgres_bin_dir() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

ensure_postgres_user() {
    id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
}
