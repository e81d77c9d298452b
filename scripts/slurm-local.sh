#!/usr/bin/env bash
# Starts and stops a throwaway single-node Slurm cluster on localhost, for the Slurm
# round-trip test of `gpurtl sweep --emit-slurm` / `gpurtl sweep collect`.
#
#   scripts/slurm-local.sh start STATE_DIR   write STATE_DIR/slurm.conf, start munged,
#                                            slurmctld and slurmd, wait until the node is
#                                            idle (60 s at most), then print on stdout
#                                              export SLURM_CONF=STATE_DIR/slurm.conf
#                                            (use `eval "$(scripts/slurm-local.sh start D)"`
#                                            or set SLURM_CONF to that path yourself)
#   scripts/slurm-local.sh stop STATE_DIR    stop what `start` started (by its pid files)
#                                            and wait for it to exit; safe to repeat
#
# Run as root (the daemons run as root; munged is given --force for that). Needs
# slurmctld, slurmd, munged, sinfo, squeue, scancel (Debian: slurm-wlm, munge). Everything
# (config, munge key and socket, state, spool, logs, pid files) lives under STATE_DIR,
# so nothing under /etc is touched and clusters in different STATE_DIRs do not collide
# (ports are the first free pair from SLURM_LOCAL_PORT, default 16817, upwards).
# One partition, debug: nproc CPUs, 90% of the memory; a job without --mem gets 1 GiB
# per CPU. No accounting (sacct has nothing): judge jobs by their output files.
# Progress and errors go to stderr; on failure the daemon logs' tails are shown.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin # the daemons live in sbin, not always on a user's PATH

# Reports a failed start with the daemon logs' tails, then stops whatever did start.
die() {
  trap - ERR
  echo "slurm-local: $*" >&2
  for log in "$dir"/log/*.log; do
    [[ -f $log ]] && { echo "--- tail of $log" >&2; tail -n 20 "$log" >&2; }
  done
  stop_all || true
  exit 1
}

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -eq 2 && ( $1 == start || $1 == stop ) ]] || usage
[[ -d $2 || $1 == start ]] || exit 0 # nothing to stop
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf

# True while a process runs. A zombie counts as gone: in this container PID 1 reaps
# orphans only every second or two, and the ports and files are released already.
alive() { [[ -r /proc/$1/stat && $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) != Z ]]; }

# Sends SIGTERM to the daemon named by a pid file, and SIGKILL after 15 s. The pid is
# checked against the daemon's name so a stale file never kills an unrelated process.
stop_daemon() {
  local name=$1 pidfile=$2 pid i
  [[ -f $pidfile ]] || return 0
  pid=$(<"$pidfile")
  if [[ $pid =~ ^[0-9]+$ ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name"* ]]; then
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$pidfile"
}

stop_all() {
  local p pid i tree
  # Cancel jobs first and wait (15 s at most) until they are gone: slurmstepd and the
  # jobs' processes would outlive slurmd otherwise.
  pid=$(cat "$dir/run/slurmctld.pid" 2>/dev/null || true)
  if [[ -n $pid ]] && alive "$pid"; then
    export SLURM_CONF=$conf
    timeout 10 scancel --quiet --user=root 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do
      [[ -z $(timeout 5 squeue -h 2>/dev/null) ]] && break
      sleep 0.25
    done
  fi
  stop_daemon slurmd "$dir/run/slurmd.pid"
  # Should a step survive anyway, kill it and its job's processes. Ours are the
  # slurmstepd processes that write to this cluster's slurmd.log.
  for p in $(pgrep -x slurmstepd || true); do
    [[ $(readlink /proc/"$p"/fd/* 2>/dev/null) == *"$dir/log/slurmd.log"* ]] || continue
    tree=("$p")
    for ((i = 0; i < ${#tree[@]}; i++)); do
      mapfile -t -O "${#tree[@]}" tree < <(pgrep -P "${tree[i]}" || true)
    done
    kill -9 "${tree[@]}" 2>/dev/null || true
  done
  stop_daemon slurmctld "$dir/run/slurmctld.pid"
  stop_daemon munged "$dir/run/munged.pid"
}

[[ $1 == stop ]] && { stop_all; exit 0; }

# --- start ------------------------------------------------------------------------
for tool in munged slurmctld slurmd sinfo squeue scancel; do
  command -v "$tool" >/dev/null || { echo "slurm-local: $tool not found" >&2; exit 1; }
done
[[ $(id -u) -eq 0 ]] || { echo "slurm-local: must run as root" >&2; exit 1; }
[[ -f $dir/run/slurmctld.pid ]] && { echo "slurm-local: $dir already in use (stop it first)" >&2; exit 1; }

# munged wants its socket directory searchable by all, but writable by root alone.
mkdir -p "$dir"/{log,run,state,spool,munge}
chmod 0755 "$dir/munge"
rm -f "$dir"/log/*.log
trap 'die "start failed at line $LINENO"' ERR

# A fresh key per cluster; munged only accepts a key readable by its owner alone.
rm -f "$dir/munge/munge.key"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
sock=$dir/munge/munge.socket
munged --force --key-file="$dir/munge/munge.key" --socket="$sock" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed" || die "munged did not start"

# The first pair of ports, from SLURM_LOCAL_PORT up, on which nothing listens.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${SLURM_LOCAL_PORT:-16817}
until port_free "$port" && port_free $((port + 1)); do port=$((port + 2)); done

# slurmd names itself after the short hostname, so the node must carry that name.
node=$(hostname -s)
cpus=$(nproc)
# Leave 10% of the memory slurmd sees unclaimed: if RealMemory is above what slurmd
# measures the node is drained. DefMemPerCPU stops a job without --mem from taking it all.
mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
[[ -n $mem ]] || die "'slurmd -C' reported no RealMemory"
mem=$((mem * 9 / 10))

cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh; a single-node test cluster. Do not edit.
ClusterName=gpurtl-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
# No cgroups (a container may not let slurmd manage any), no accounting database.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=300
InactiveLimit=0
KillWait=5
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/plugstack.conf"

# Both daemonize and write their pid files; -c starts slurmctld with empty state.
slurmctld -c -f "$conf" || die "slurmctld did not start"
slurmd -f "$conf" || die "slurmd did not start"

export SLURM_CONF=$conf
start=$SECONDS state=
while [[ $state != idle ]]; do
  ((SECONDS - start < 60)) || die "node $node not idle after 60 s (state: '${state:-none}')"
  sleep 1
  # Fail fast when a daemon died (given 3 s to daemonize and write its pid file).
  for d in slurmctld slurmd; do
    pid=$(cat "$dir/run/$d.pid" 2>/dev/null || true)
    ((SECONDS - start < 3)) || { [[ -n $pid ]] && alive "$pid"; } || die "$d exited"
  done
  state=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null || true)
done
trap - ERR
echo "slurm-local: cluster up in $dir (ports $port, $((port + 1)))" >&2
echo "export SLURM_CONF=$conf"
