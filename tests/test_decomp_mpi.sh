#!/usr/bin/env bash
# Runs tests/test_decomp_mpi.c on NP ranks: test_decomp_mpi.sh PROGRAM NP LAYOUT.
# Exit 77 (skipped) where mpirun is missing (scripts/deps.sh installs openmpi-bin).
program=$1 ranks=$2 layout=$3
command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
# This machine runs tests as root and has 2 cores: Open MPI refuses both unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np "$ranks" --oversubscribe "$program" "$layout"
