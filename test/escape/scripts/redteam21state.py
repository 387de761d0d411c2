# What other tenants of a shared runner machine keep on it, which the
# test added (named as arguments, each with a token, in directories of
# the modes their programs give them): the container engines' state
# (each container's config with its environment whole, its log, its
# layers, its volumes), other CI agents' homes (Jenkins' credentials and
# the key that decrypts them, every job's workspace and build logs;
# Buildkite's checkouts), BuildKit's snapshots of every build's context.
# A --root-sandbox run's uid 0 is the host's root, which reads each where
# vigiles does not hide it; another caller reads what the modes leave to
# every user. The hook reads each file, then lists each directory named
# after "--list" (a container's id, a job's name).
import os, sys
sys.dont_write_bytecode = True
from attempts import attempt, read_each, finish

args = sys.argv[1:]
k = args.index("--list") if "--list" in args else len(args)
read_each(args[:k], "h122-tenant-token")
for d in args[k + 1:]:
    try:
        got = "listed " + str(len(os.listdir(d)))
    except OSError as e:
        got = e.strerror
    attempt(f"{d} lists nothing", got, ["listed 0", "No such file or directory", "Permission denied"])
finish()
