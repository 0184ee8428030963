# Sourced (from the repository root) by the scripts that run peers: creates or reuses
# target/linalg-venv with pinned numpy, scipy and jax from PyPI (nothing is installed
# system-wide) and sets `venv` to it. One place for the pins, so every peer script runs the same
# versions.
venv=target/linalg-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  numpy==2.4.6 jax==0.10.2 jaxlib==0.10.2 ml_dtypes==0.6.0 scipy==1.17.1 opt_einsum==3.4.0
