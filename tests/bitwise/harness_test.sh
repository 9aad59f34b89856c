#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# harness_test.sh <stablefluids> <mpiexec>
#
# The bit-identity harness (tests/bitwise/record and compare) can tell a change from none: one
# small job (the 2-D dam break: a liquid with marker particles, so frames, checkpoints, groups,
# text, the particles' index and the steps CSV are all there) is recorded twice with the same
# executable on 1 rank, and the two records must be identical. Then copies of the second record
# are altered, one thing each, and each must be found, named, with exit status 1:
#   - one value of a frame's /phi moved by one unit in the last place (bitwise, not to a
#     tolerance), and a 0.0 of /velocity made -0.0 (equal as numbers, not as bits);
#   - two marker particles swapped (they are compared in the order they are stored);
#   - a root attribute that is state (time), a removed checkpoint, a physics column of the
#     steps CSV changed in its last digit;
# while what the comparison leaves out on purpose (the date a file was written, its command
# line, a wall-clock column of the steps CSV) may change without a difference being reported.
set -uo pipefail
exe=$1 mpiexec=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../cli/cli_checks.sh
source "$src/tests/cli/cli_checks.sh"
export PYTHONDONTWRITEBYTECODE=1 MPIEXEC=$mpiexec
unset PYTHONHOME PYTHONPATH
job=dam_break_2d

for record in a b; do
  check "record $record runs" "$here/record" "$exe" "$work/$record" -n 1 "$src/jobs/$job.yaml"
done
run=1/$job
frames=$(find "$work/a/$run" -name "${job}_[0-9]*.h5" -printf '%f\n' | sort)
last=$(tail -n 1 <<< "$frames")
checkpoint=$(find "$work/a/$run" -name "${job}_checkpoint_*.h5" -printf '%f\n')
check "the record has two frames" test "$(wc -l <<< "$frames")" -eq 2
check "the record has one checkpoint" test "$(wc -w <<< "$checkpoint")" -eq 1
"$here/compare" "$work/a" "$work/b" > "$work/same.txt"
status=$?
cat "$work/same.txt"
check "two records of one executable are identical (status $status)" test "$status" -eq 0
check "compare says so" grep -qxF "$run: identical" "$work/same.txt"

# alter <name> <python statements>: a copy of record b altered by the statements, with h5py as
# h5py, numpy as numpy and d the copy's run directory.
alter() {
  rm -rf "${work:?}/$1"
  cp -r "$work/b" "$work/$1"
  "$python" -c "import h5py, numpy; d = '$work/$1/$run'; $2"
}
# differs <name> <text>: the altered copy differs from record a, and compare names <text>.
differs() {
  "$here/compare" "$work/a" "$work/$1" > "$work/$1.txt"
  local status=$?
  sed 's/^/  /' "$work/$1.txt"
  check "$1: compare fails (status $status)" test "$status" -eq 1
  check "$1: compare names $2" grep -qF "$2" "$work/$1.txt"
}
same() {  # same <name>: the altered copy is still identical to record a
  "$here/compare" "$work/a" "$work/$1" > "$work/$1.txt"
  local status=$?
  sed 's/^/  /' "$work/$1.txt"
  check "$1: compare finds nothing (status $status)" test "$status" -eq 0
}

alter ulp "
with h5py.File(f'{d}/$last', 'r+') as f:
    phi = f['phi'][()]
    phi[5, 7] = numpy.nextafter(phi[5, 7], numpy.inf)
    f['phi'][...] = phi"
differs ulp "$last: /phi: 1 of"

alter negative_zero "
with h5py.File(f'{d}/$last', 'r+') as f:
    velocity = f['velocity'][()]
    assert velocity[0, 0, 2] == 0.0  # w is 0 in 2-D
    velocity[0, 0, 2] = -0.0
    f['velocity'][...] = velocity"
differs negative_zero "$last: /velocity: 1 of"

alter swapped_particles "
with h5py.File(f'{d}/$last', 'r+') as f:
    position = f['particles/position'][()]
    position[[0, 1]] = position[[1, 0]]
    f['particles/position'][...] = position"
differs swapped_particles "$last: /particles/position: "

alter time "
with h5py.File(f'{d}/$checkpoint', 'r+') as f:
    f.attrs['time'] = f.attrs['time'] * 2"
differs time "$checkpoint: /: attribute time"

alter missing "import os; os.remove(f'{d}/$checkpoint')"
differs missing "$checkpoint: only in A"

alter csv "
path = f'{d}/${job}_steps.csv'
lines = open(path).read().splitlines()
header = lines[0].split(',')
row = lines[-1].split(',')
k = header.index('kinetic_energy')
row[k] = row[k][:-1] + ('1' if row[k][-1] != '1' else '2')
lines[-1] = ','.join(row)
open(path, 'w').write('\n'.join(lines) + '\n')"
differs csv "${job}_steps.csv: column kinetic_energy"

alter excluded "
with h5py.File(f'{d}/$last', 'r+') as f:
    f.attrs['written'] = numpy.bytes_('1999-01-01T00:00:00Z')
    f.attrs['command_line'] = numpy.bytes_('elsewhere/stablefluids job.yaml')
path = f'{d}/${job}_steps.csv'
lines = open(path).read().splitlines()
header = lines[0].split(',')
row = lines[-1].split(',')
row[header.index('wall_seconds')] = '1234.5'
lines[-1] = ','.join(row)
open(path, 'w').write('\n'.join(lines) + '\n')"
same excluded

echo "bitwise_harness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
