# Two hooks of one audit and host files both read through the read-only
# root: "watch" asks inotify for every open and read of them and prints
# each it is told of, which its own process never makes, and watches a
# file of the work tree the same way; "read", started at the same time,
# reads them all now and then, as a hook reads the host's configuration
# (its resolver's, its certificates) and the tree.
import ctypes, os, struct, sys, time

paths = ["/etc/services", "/etc/protocols", "redteam17.py"]
if sys.argv[1] == "watch":
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    wds = {}
    for p in paths:
        wd = libc.inotify_add_watch(fd, p.encode(), 0x20 | 0x1)  # IN_OPEN | IN_ACCESS
        if wd < 0:
            print(f"no watch on {p}: {ctypes.get_errno()}", flush=True)
        wds[wd] = p
    print("watching", flush=True)
    seen = set()
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        try:
            buf = os.read(fd, 4096)
        except BlockingIOError:
            time.sleep(0.1)
            continue
        while buf:
            wd, mask, _, n = struct.unpack_from("iIII", buf)
            seen.add(wds.get(wd, "?"))
            buf = buf[16 + n:]
    for p in sorted(seen):
        print(f"saw the other's open of {p}", flush=True)
    # The control: this hook's own open of the tree's file is told, so a
    # watch there that heard nothing of the other's was a working one.
    with open(paths[2]) as f:
        f.read(1)
    time.sleep(0.2)
    try:
        if os.read(fd, 4096):
            print(f"saw its own open of {paths[2]}", flush=True)
    except BlockingIOError:
        pass
    print("done", flush=True)
else:
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        for p in paths:
            with open(p) as f:
                f.read(1)
        time.sleep(0.5)
    print("done", flush=True)
