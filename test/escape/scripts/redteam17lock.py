# Two hooks of one audit and a host file both read through the read-only
# root: "hold" takes an exclusive lock on it (a descriptor opened for
# reading is all flock needs) and keeps it while the other's run lasts;
# "wait", started at the same time, waits until the holder has it and
# then asks for the same lock, as a tool that serialises itself on a file
# would.
import fcntl, os, sys, time

path = "/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd"
f = open(path)
if sys.argv[1] == "hold":
    fcntl.flock(f, fcntl.LOCK_EX)
    print(f"holding {path} {time.time():.3f}", flush=True)
    time.sleep(float(sys.argv[2]))
    print("let go", flush=True)
else:
    # Until the holder has it: a lock this hook gets at once is let go
    # again, so that the holder, however late its sandbox starts, takes it.
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(f, fcntl.LOCK_UN)
            time.sleep(0.2)
        except BlockingIOError:
            break
    print(f"waiting for {path} {time.time():.3f}", flush=True)
    fcntl.flock(f, fcntl.LOCK_EX)
    print("got the lock", flush=True)
