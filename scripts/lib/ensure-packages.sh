# Installs the Debian packages named as arguments when they are missing (needs root, as on
# this project's machines). Sourced by the scripts that need system packages.
ensure_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing missing packages: ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# The packages every build of WidgetBus needs.
ensure_build_packages() {
    ensure_packages libzmq3-dev libsqlite3-dev pkg-config
}
