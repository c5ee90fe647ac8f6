#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Expands mpi-funcs.def into the PMPI wrappers.

usage: gen-wrappers.py DEF EXCLUDED MPI_H_PREPROCESSED OUTDIR

The prototypes come from MPI's own header (preprocessed, so mpio.h and
mpi_proto.h are in), the logging semantics from the list.  The build fails
when mpi.h declares an MPI_* function that is neither listed nor excluded,
or when the list names a function mpi.h does not declare.

Writes OUTDIR/lmpe-gen.c (liblmpe/libampe), OUTDIR/tmpe-gen.c (libtmpe),
OUTDIR/collchk-gen.c (libmpe_collchk) and OUTDIR/mpi-funcs.txt (name class
kind state, for the tests).
"""
import fnmatch
import os
import re
import sys

CLASSES = ["COLL", "MSG", "MSG_INIT", "COMM", "COMM_INFO", "TOPO", "FILE",
           "RMA", "SPAWN", "ENV", "ATTR", "GROUP", "DATATYPE", "TOOL"]
KINDS = {"plain", "coll", "send", "recv", "isend", "irecv", "sendrecv",
         "isendrecv", "psend_init", "precv_init", "start", "startall",
         "wait", "waitall", "waitany", "waitsome", "test", "testall",
         "testany", "testsome", "reqfree", "cancel", "mprobe", "mrecv",
         "imrecv", "commnew", "commfree", "init", "finalize", "rma", "io", "abort"}

# One-sided data calls (kind rma), by name without R and _c: bytes sent
# (to the target's window) and received (from it).
_OC = "(origin_count > 0 ? (uint64_t) origin_count : 0) * TS (origin_datatype)"
_RC = "(result_count > 0 ? (uint64_t) result_count : 0) * TS (result_datatype)"
RMA_BYTES = {
    "Put": (_OC, "0"),
    "Get": ("0", _OC),
    "Accumulate": (_OC, "0"),
    "Get_accumulate": (_OC, _RC),
    "Fetch_and_op": ("TS (datatype)", "TS (datatype)"),
    "Compare_and_swap": ("2 * TS (datatype)", "TS (datatype)"),
}


def die(msg):
    sys.stderr.write("gen-wrappers: error: %s\n" % msg)
    sys.exit(1)


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [x.strip() for x in out]


class Param:
    def __init__(self, text):
        self.text = text
        m = re.search(r"(\w+)\s*((?:\[[^\]]*\]\s*)*)$", text)
        if not m:
            die("cannot parse parameter '%s'" % text)
        self.name = m.group(1)
        self.ctype = text[:m.start(1)].strip()
        self.array = bool(m.group(2))


def parse_header(path):
    """Returns {name: (ret, [Param], variadic)} for every MPI_ function."""
    text = open(path).read()
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    text = re.sub(r"\s+", " ", text)
    # Drop attribute lists so they cannot hide a declaration.
    while True:
        n = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", text)
        if n == text:
            break
        text = n
    funcs = {}
    for decl in split_top(text, ";"):
        decl = decl.strip()
        if "typedef" in decl:
            continue
        decl = decl.split("}")[-1].strip()
        m = re.match(r"^(?:extern )?((?:const )?[A-Za-z_]\w*(?: \*)*) ?\*?"
                     r"(MPI_\w+) ?\((.*)\)\s*(?:MPICH_API_PUBLIC)?$", decl)
        if not m:
            continue
        ret, name, args = m.group(1).strip(), m.group(2), m.group(3).strip()
        variadic = False
        params = []
        if args and args != "void":
            for a in split_top(args):
                if a == "...":
                    variadic = True
                else:
                    params.append(Param(a))
        funcs[name] = (ret, params, variadic)
    if "MPI_Send" not in funcs or "MPI_File_open" not in funcs:
        die("%s does not look like a preprocessed mpi.h" % path)
    return funcs


def read_list(path):
    rows, seen_state = [], {}
    for ln, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        f = line.split()
        if len(f) != 5:
            die("%s:%d: want 'name class kind state colour'" % (path, ln))
        name, cls, kind, state, color = f
        if cls not in CLASSES:
            die("%s:%d: unknown class %s" % (path, ln, cls))
        if kind not in KINDS:
            die("%s:%d: unknown kind %s" % (path, ln, kind))
        state = int(state)
        if state in seen_state:
            die("%s:%d: state %d already used by %s"
                % (path, ln, state, seen_state[state]))
        if 250 <= state < 300:
            die("%s:%d: states 250..299 are MPE/CLOG internal" % (path, ln))
        seen_state[state] = name
        rows.append(dict(name=name, cls=cls, kind=kind, state=state,
                         color=color, line=ln))
    return rows


def read_excluded(path):
    pats = []
    for ln, line in enumerate(open(path), 1):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split(None, 1)
        if len(f) < 2 or not f[1].strip():
            die("%s:%d: every exclusion needs a reason" % (path, ln))
        pats.append(f[0])
    return pats


def state_events(s):
    if s < 300:
        return 2 * s, 2 * s + 1
    return -1001 - 2 * (s - 300), -1002 - 2 * (s - 300)


# Bytes of collectives: (sent, received) as C expressions over the
# parameter names (see README.md for what they mean).  NP = peers (remote
# size for intercommunicators), ME = rank, ROOT = this rank is the root,
# TS(t) = type size, SUM(a, n), SUMW(a, t, n), IN/OUT = neighbour counts.
COLL_BYTES = {
    "Barrier": ("0", "0"),
    "Bcast": ("ROOT ? count * TS (datatype) : 0",
              "ROOT ? 0 : count * TS (datatype)"),
    "Allgather": ("IP (sendbuf) ? recvcount * TS (recvtype) "
                  ": sendcount * TS (sendtype)",
                  "recvcount * TS (recvtype) * NP"),
    "Allgatherv": ("IP (sendbuf) ? recvcounts[ME] * TS (recvtype) "
                   ": sendcount * TS (sendtype)",
                   "SUM (recvcounts, NP) * TS (recvtype)"),
    "Allreduce": ("count * TS (datatype)", "count * TS (datatype)"),
    "Alltoall": ("IP (sendbuf) ? recvcount * TS (recvtype) * NP "
                 ": sendcount * TS (sendtype) * NP",
                 "recvcount * TS (recvtype) * NP"),
    "Alltoallv": ("IP (sendbuf) ? SUM (recvcounts, NP) * TS (recvtype) "
                  ": SUM (sendcounts, NP) * TS (sendtype)",
                  "SUM (recvcounts, NP) * TS (recvtype)"),
    "Alltoallw": ("IP (sendbuf) ? SUMW (recvcounts, recvtypes, NP) "
                  ": SUMW (sendcounts, sendtypes, NP)",
                  "SUMW (recvcounts, recvtypes, NP)"),
    "Exscan": ("count * TS (datatype)", "count * TS (datatype)"),
    "Scan": ("count * TS (datatype)", "count * TS (datatype)"),
    "Gather": ("IP (sendbuf) ? recvcount * TS (recvtype) "
               ": sendcount * TS (sendtype)",
               "ROOT ? recvcount * TS (recvtype) * NP : 0"),
    "Gatherv": ("IP (sendbuf) ? recvcounts[ME] * TS (recvtype) "
                ": sendcount * TS (sendtype)",
                "ROOT ? SUM (recvcounts, NP) * TS (recvtype) : 0"),
    "Reduce": ("count * TS (datatype)",
               "ROOT ? count * TS (datatype) : 0"),
    "Reduce_local": ("count * TS (datatype)", "count * TS (datatype)"),
    "Reduce_scatter": ("SUM (recvcounts, NP) * TS (datatype)",
                       "recvcounts[ME] * TS (datatype)"),
    "Reduce_scatter_block": ("recvcount * NP * TS (datatype)",
                             "recvcount * TS (datatype)"),
    "Scatter": ("ROOT ? sendcount * TS (sendtype) * NP : 0",
                "IP (recvbuf) ? sendcount * TS (sendtype) "
                ": recvcount * TS (recvtype)"),
    "Scatterv": ("ROOT ? SUM (sendcounts, NP) * TS (sendtype) : 0",
                 "IP (recvbuf) ? sendcounts[ME] * TS (sendtype) "
                 ": recvcount * TS (recvtype)"),
    "Neighbor_allgather": ("sendcount * TS (sendtype) * OUT",
                           "recvcount * TS (recvtype) * IN"),
    "Neighbor_allgatherv": ("sendcount * TS (sendtype) * OUT",
                            "SUM (recvcounts, IN) * TS (recvtype)"),
    "Neighbor_alltoall": ("sendcount * TS (sendtype) * OUT",
                          "recvcount * TS (recvtype) * IN"),
    "Neighbor_alltoallv": ("SUM (sendcounts, OUT) * TS (sendtype)",
                           "SUM (recvcounts, IN) * TS (recvtype)"),
    "Neighbor_alltoallw": ("SUMW (sendcounts, sendtypes, OUT)",
                           "SUMW (recvcounts, recvtypes, IN)"),
}


def coll_base(name):
    b = name[4:]
    if b.endswith("_c"):
        b = b[:-2]
    if b.endswith("_init"):
        b = b[:-5]
    if b not in COLL_BYTES and b.startswith("I") and b[1:] in COLL_BYTES:
        b = b[1:]
    return b


def need(f, names):
    pn = [p.name for p in f["params"]]
    for n in names:
        if n not in pn:
            die("%s (kind %s) has no parameter '%s' in mpi.h"
                % (f["name"], f["kind"], n))


def proto(f):
    ps = ", ".join(p.text for p in f["params"]) or "void"
    return "%s\n%s (%s)" % (f["ret"], f["name"], ps)


def call(f):
    return "P%s (%s)" % (f["name"],
                         ", ".join(p.name for p in f["params"]))


def param(f, name):
    for p in f["params"]:
        if p.name == name:
            return p
    return None


def status_sub(f, var="status"):
    return ("  MPI_Status st_tmp_;\n"
            "  if (%s == MPI_STATUS_IGNORE)\n"
            "    %s = &st_tmp_;\n" % (var, var))


def gen_lmpe(f, idx):
    k, n = f["kind"], f["name"]
    s0, s1 = state_events(f["state"])
    S = "%d" % idx
    body = []
    ret = f["ret"]
    rdecl = "  %s rc;\n" % ret
    c = call(f)
    on = "  int on_ = WRAP_ON (%s);\n" % S
    beg = "  if (on_)\n    wrap_begin (%s, %d);\n" % (S, s0)
    end = "  if (on_)\n    wrap_end (%d);\n" % s1
    fast = "  if (!WRAP_ON (%s))\n    return %s;\n" % (S, c)
    ok = "rc == MPI_SUCCESS"
    if k in ("init", "finalize"):
        return None  # written by hand in wrap-core.c
    if n == "MPI_Query_thread":
        # MPI_Init may have raised the level for the monitor's helper
        # thread: the program sees the level it asked for.
        body = [rdecl, "  int on_ = WRAP_ON (%s);\n" % S,
                "  if (on_)\n    wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c,
                "  if (rc == MPI_SUCCESS)\n"
                "    *provided = mpe__wrap_thread_level (*provided);\n",
                "  if (on_)\n    wrap_end (%d);\n" % s1, "  return rc;\n"]
    elif k == "plain" or k == "coll" and ret != "int":
        body = [fast, rdecl, "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c, "  wrap_end (%d);\n" % s1,
                "  return rc;\n"]
    elif k == "abort":
        # The log will not be written: what memory holds goes to the
        # spill file and the user is told where it is, first.
        body = ["  mpe__wrap_abort ();\n", fast, rdecl,
                "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c, "  wrap_end (%d);\n" % s1,
                "  return rc;\n"]
    elif k == "coll":
        base = coll_base(n)
        if base not in COLL_BYTES:
            die("%s: kind coll but no byte formula for %s" % (n, base))
        snt, rcv = COLL_BYTES[base]
        pn = [p.name for p in f["params"]]
        comm = "comm" if "comm" in pn else "MPI_COMM_NULL"
        root = "root" if "root" in pn else "-1"
        body = [fast, rdecl, "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c,
                "  {\n    WRAP_COLL_VARS (%s, %s);\n" % (comm, root),
                "    wrap_end_coll (%d, %s, %s, (uint64_t) (%s), "
                "(uint64_t) (%s));\n  }\n" % (s1, comm, root, snt, rcv),
                "  return rc;\n"]
    elif k == "send":
        need(f, ["count", "datatype", "dest", "tag", "comm"])
        body = [fast, rdecl,
                "  wrap_begin_send (%s, %d, comm, dest, tag, count, "
                "datatype);\n" % (S, s0),
                "  rc = %s;\n" % c, "  wrap_end (%d);\n" % s1,
                "  return rc;\n"]
    elif k == "recv":
        need(f, ["comm", "status"])
        body = [fast, rdecl, status_sub(f),
                "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c,
                "  wrap_recv_end (comm, status, %s, %d);\n" % (ok, s1),
                "  return rc;\n"]
    elif k == "sendrecv":
        need(f, ["dest", "sendtag", "comm", "status"])
        cnt, dt = ("sendcount", "sendtype") if param(f, "sendtype") \
            else ("count", "datatype")
        body = [fast, rdecl, status_sub(f),
                "  wrap_begin_send (%s, %d, comm, dest, sendtag, %s, %s);\n"
                % (S, s0, cnt, dt),
                "  rc = %s;\n" % c,
                "  wrap_recv_end (comm, status, %s, %d);\n" % (ok, s1),
                "  return rc;\n"]
    elif k == "isend":
        need(f, ["count", "datatype", "dest", "tag", "comm", "request"])
        body = [fast, rdecl,
                "  wrap_begin_send (%s, %d, comm, dest, tag, count, "
                "datatype);\n" % (S, s0),
                "  rc = %s;\n" % c, "  wrap_end (%d);\n" % s1,
                "  return rc;\n"]
    elif k in ("irecv", "isendrecv"):
        need(f, ["comm", "request"])
        pre = ""
        if k == "isendrecv":
            cnt, dt = ("sendcount", "sendtype") if param(f, "sendtype") \
                else ("count", "datatype")
            pre = "  wrap_send (comm, dest, sendtag, %s, %s);\n" % (cnt, dt)
        body = [fast, rdecl, "  wrap_begin (%s, %d);\n" % (S, s0), pre,
                "  rc = %s;\n" % c,
                "  if (%s)\n    mpe__req_add (*request, MPE__REQ_RECV, comm, "
                "MPI_PROC_NULL, 0, 0);\n" % ok,
                "  wrap_end (%d);\n" % s1, "  return rc;\n"]
    elif k in ("psend_init", "precv_init"):
        need(f, ["comm", "request"])
        if k == "psend_init":
            need(f, ["count", "datatype", "dest", "tag"])
            mult = " * (uint64_t) partitions" if param(f, "partitions") \
                else ""
            add = ("mpe__req_add (*request, MPE__REQ_SEND | MPE__REQ_PERSIST,"
                   " comm, dest, tag, (uint64_t) count%s "
                   "* wrap_type_size (datatype))" % mult)
        else:
            add = ("mpe__req_add (*request, MPE__REQ_RECV | MPE__REQ_PERSIST,"
                   " comm, MPI_PROC_NULL, 0, 0)")
        body = [on, rdecl, beg, "  rc = %s;\n" % c,
                "  if (%s && mpe__wrap_inited)\n    %s;\n" % (ok, add),
                end, "  return rc;\n"]
    elif k in ("start", "startall", "wait", "waitall", "waitany",
               "waitsome", "test", "testall", "testany", "testsome",
               "reqfree", "cancel"):
        args = ", ".join([S] + [p.name for p in f["params"]])
        body = ["  return mpe__wrap_%s (%s);\n" % (k, args)]
    elif k == "mprobe":
        need(f, ["comm", "message"])
        cond = ok + (" && *flag" if param(f, "flag") else "")
        body = [on, rdecl, beg, "  rc = %s;\n" % c,
                "  if (%s && mpe__wrap_inited && *message != MPI_MESSAGE_NULL"
                "\n      && *message != MPI_MESSAGE_NO_PROC)\n"
                "    mpe__msg_add (*message, comm);\n" % cond,
                end, "  return rc;\n"]
    elif k in ("mrecv", "imrecv"):
        need(f, ["message"])
        take = ("  MPI_Comm comm_ = MPI_COMM_NULL;\n"
                "  if (mpe__wrap_inited && *message != MPI_MESSAGE_NULL\n"
                "      && *message != MPI_MESSAGE_NO_PROC)\n"
                "    comm_ = mpe__msg_take (*message);\n")
        if k == "mrecv":
            need(f, ["status"])
            # The receive and the end with one clock read, as MPI_Recv.
            body = [on, rdecl, take, status_sub(f), beg, "  rc = %s;\n" % c,
                    "  if (on_)\n"
                    "    wrap_recv_end (comm_, status,\n"
                    "                   %s && comm_ != MPI_COMM_NULL, %d);\n"
                    % (ok, s1),
                    "  return rc;\n"]
        else:
            need(f, ["request"])
            body = [on, rdecl, take, beg, "  rc = %s;\n" % c,
                    "  if (%s && on_ && comm_ != MPI_COMM_NULL)\n"
                    "    mpe__req_add (*request, MPE__REQ_RECV, comm_, "
                    "MPI_PROC_NULL, 0, 0);\n" % ok,
                    end, "  return rc;\n"]
    elif k == "commnew":
        outs = [p for p in f["params"] if p.ctype == "MPI_Comm *"]
        if len(outs) != 1:
            die("%s: kind commnew needs exactly one 'MPI_Comm *' parameter"
                % n)
        o = outs[0].name
        body = [on, rdecl, beg, "  rc = %s;\n" % c,
                "  if (%s && mpe__wrap_inited && *%s != MPI_COMM_NULL)\n"
                "    wrap_comm_created (*%s, on_);\n" % (ok, o, o),
                end, "  return rc;\n"]
    elif k == "commfree":
        need(f, ["comm"])
        body = [on, rdecl, beg,
                "  if (mpe__wrap_inited && *comm != MPI_COMM_NULL)\n"
                "    wrap_comm_freed (*comm, on_ && %d);\n"
                % (n == "MPI_Comm_free"),
                "  rc = %s;\n" % c, end, "  return rc;\n"]
    elif k == "rma":
        b = n[4:]
        if b.endswith("_c"):
            b = b[:-2]
        if b not in RMA_BYTES and b.startswith("R") and b[1:].capitalize() \
                in RMA_BYTES:
            b = b[1:].capitalize()
        if b not in RMA_BYTES:
            die("%s: kind rma but no byte formula" % n)
        need(f, ["target_rank"])
        snt, rcv = RMA_BYTES[b]
        body = [fast, rdecl, "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c,
                "  wrap_end_rma (%d, target_rank, (uint64_t) (%s), "
                "(uint64_t) (%s));\n" % (s1, snt, rcv),
                "  return rc;\n"]
    elif k == "io":
        need(f, ["count", "datatype"])
        body = [fast, rdecl, "  wrap_begin (%s, %d);\n" % (S, s0),
                "  rc = %s;\n" % c,
                "  wrap_end_io (%d, (count > 0 ? (uint64_t) count : 0) "
                "* TS (datatype));\n" % s1,
                "  return rc;\n"]
    else:
        die("%s: kind %s not handled" % (n, k))
    return proto(f) + "\n{\n" + "".join(body) + "}\n"


# Clock reads are not traced: programs call them in tight loops and MPE2
# users know the trace without them.
TMPE_UNTRACED = {"MPI_Wtime", "MPI_Wtick"}
# MPE2's trace lines (its trace_mpi_core.c), kept character for character
# so that what was written to read them still does: only point-to-point
# calls print their arguments (collectives print none, not even the
# root); the nonblocking and persistent ones end "Starting" with " ..."
# where the blocking ones have "..."; MPI_Ibsend says "count - ";
# MPI_Sendrecv's "Ending" line has no source; MPI_Attr_delete's "Ending"
# line ends in "...".  MPI-2..4 functions MPE2 did not trace follow their
# MPI-1 sibling (MPI_Psend_init as MPI_Send_init...).
TMPE_SPACED = {"Isend", "Issend", "Irsend", "Ibsend", "Irecv", "Send_init",
               "Recv_init", "Psend_init", "Precv_init", "Isendrecv",
               "Isendrecv_replace", "Sendrecv", "Sendrecv_replace"}
TMPE_END_DOTS = {"MPI_Attr_delete"}


def gen_tmpe(f):
    k, n = f["kind"], f["name"]
    c = call(f)
    if k in ("init", "finalize") or n in TMPE_UNTRACED:
        return None
    pn = [p.name for p in f["params"]]
    base = n[4:-2] if n.endswith("_c") else n[4:]
    start = "Starting %s" % n
    sargs = []
    endl = "Ending %s" % n
    eargs = []
    pre = ""
    if k in ("send", "isend", "psend_init"):
        start += " with count %s %%lld, dest = %%d, tag = %%d" % (
            "-" if base == "Ibsend" else "=")
        sargs = ["(long long) count", "dest", "tag"]
    elif k in ("recv", "irecv", "precv_init") and "source" in pn:
        start += " with count = %lld, source = %d, tag = %d"
        sargs = ["(long long) count", "source", "tag"]
    elif k in ("sendrecv", "isendrecv"):
        start += " with sendtag %d, recvtag %d, dest %d, source %d"
        sargs = ["sendtag", "recvtag", "dest", "source"]
    if k in ("recv", "mrecv") and "status" in pn:
        pre = status_sub(f)
        endl += " from %d with tag %d"
        eargs = ["status->MPI_SOURCE", "status->MPI_TAG"]
    start += " ..." if base in TMPE_SPACED else "..."
    ret = f["ret"]
    fmt = lambda s, a: "".join(  # noqa: E731
        ['"%s"' % s] + [", " + x for x in a])
    body = ["  if (!TRACE_ON ())\n    return %s;\n" % c,
            "  %s rc;\n" % ret, pre,
            "  mpe__trace_nest = 1;\n",
            "  mpe__trace_line (%s);\n" % fmt(start, sargs),
            "  rc = %s;\n" % c]
    if eargs:
        body.append("  if (rc == MPI_SUCCESS)\n"
                    "    mpe__trace_line (%s);\n  else\n  "
                    % fmt(endl, eargs))
    body.append("  mpe__trace_line (%s);\n" % fmt(
        "Ending %s%s" % (n, "..." if n in TMPE_END_DOTS else ""), []))
    body += ["  mpe__trace_nest = 0;\n", "  return rc;\n"]
    return proto(f) + "\n{\n" + "".join(body) + "}\n"


# libmpe_collchk: which listed functions are checked, and how.  Key: the
# name without MPI_ and without the large-count _c (both forms are
# checked).  Value: the data-check shape (collchk-core.c) and the C
# statements that fill the record from the parameters; root, op and the
# MPI_IN_PLACE flag are filled from parameters of those names.  The
# nonblocking forms (MPI_I + the name) are checked the same way, with the
# exchange of records posted nonblocking and finished when the request is
# completed (CC_COMPLETE); persistent collectives are not checked.
CC_INPLACE_ALL = {"Allgather", "Allgatherv", "Allreduce", "Alltoall",
                  "Alltoallv", "Alltoallw", "Reduce_scatter",
                  "Reduce_scatter_block"}
CC_SIDE_S = "mpe__cc_side (&c_.rec.s, sendcount, sendtype);"
CC_SIDE_R = "mpe__cc_side (&c_.rec.r, recvcount, recvtype);"
CC_CHECKS = {
    "Barrier": ("NONE", []),
    "Bcast": ("BCAST", ["mpe__cc_side (&c_.rec.s, count, datatype);"]),
    "Reduce": ("UNIFORM", ["mpe__cc_side (&c_.rec.s, count, datatype);"]),
    "Allreduce": ("UNIFORM", ["mpe__cc_side (&c_.rec.s, count, datatype);"]),
    "Scan": ("UNIFORM", ["mpe__cc_side (&c_.rec.s, count, datatype);"]),
    "Exscan": ("UNIFORM", ["mpe__cc_side (&c_.rec.s, count, datatype);"]),
    "Reduce_scatter_block": ("UNIFORM", [
        "mpe__cc_side (&c_.rec.s, recvcount, datatype);"]),
    "Reduce_scatter": ("UNIFORM", [
        "mpe__cc_side (&c_.rec.s, 1, datatype);",
        "c_.rec.arr = MPE__CC_HASH_INTS (recvcounts, c_.lnp);"]),
    "Gather": ("GATHER", [CC_SIDE_S, CC_SIDE_R,
                          "c_.rec.rootinplace = sendbuf == MPI_IN_PLACE;"]),
    "Scatter": ("SCATTER", [CC_SIDE_S, CC_SIDE_R,
                            "c_.rec.rootinplace = recvbuf == MPI_IN_PLACE;"]),
    "Allgather": ("ALLGATHER", [CC_SIDE_S, CC_SIDE_R]),
    "Alltoall": ("ALLGATHER", [CC_SIDE_S, CC_SIDE_R]),
    "Gatherv": ("GATHERV", [
        CC_SIDE_S, "MPE__CC_VEC (c_.rv, recvcounts, recvtype);",
        "c_.rec.rootinplace = sendbuf == MPI_IN_PLACE;"]),
    "Scatterv": ("SCATTERV", [
        CC_SIDE_R, "MPE__CC_VEC (c_.sv, sendcounts, sendtype);",
        "c_.rec.rootinplace = recvbuf == MPI_IN_PLACE;"]),
    "Allgatherv": ("ALLGATHERV", [
        CC_SIDE_S, "MPE__CC_VEC (c_.rv, recvcounts, recvtype);"]),
    "Alltoallv": ("ALLTOALLV", [
        "MPE__CC_VEC (c_.sv, sendcounts, sendtype);",
        "MPE__CC_VEC (c_.rv, recvcounts, recvtype);"]),
    "Alltoallw": ("ALLTOALLV", [
        "MPE__CC_VECW (c_.sv, sendcounts, sendtypes);",
        "MPE__CC_VECW (c_.rv, recvcounts, recvtypes);"]),
    "Neighbor_allgather": ("NONE", []),
    "Neighbor_allgatherv": ("NONE", []),
    "Neighbor_alltoall": ("NONE", []),
    "Neighbor_alltoallv": ("NONE", []),
    "Neighbor_alltoallw": ("NONE", []),
    "Comm_dup": ("NONE", []),
    "Comm_dup_with_info": ("NONE", []),
    "Comm_create": ("NONE", []),
    "Comm_split": ("NONE", []),
    # split_type may be MPI_UNDEFINED on some ranks: not compared.
    "Comm_split_type": ("NONE", []),
    "Intercomm_create": ("NONE", ["c_.rec.aux[0] = local_leader;",
                                  "c_.rec.aux[1] = tag;"]),
    "Cart_create": ("NONE", [
        "c_.rec.aux[0] = ndims;",
        "c_.rec.arr = MPE__CC_HASH_INTS (dims, ndims) * 31"
        " + MPE__CC_HASH_INTS (periods, ndims);"]),
    "Cart_map": ("NONE", [
        "c_.rec.aux[0] = ndims;",
        "c_.rec.arr = MPE__CC_HASH_INTS (dims, ndims) * 31"
        " + MPE__CC_HASH_INTS (periods, ndims);"]),
    "Graph_create": ("NONE", [
        "c_.rec.aux[0] = nnodes;",
        "c_.rec.arr = MPE__CC_HASH_INTS (indx, nnodes) * 31"
        " + MPE__CC_HASH_INTS (edges, nnodes > 0 ? indx[nnodes - 1] : 0);"]),
    "Graph_map": ("NONE", [
        "c_.rec.aux[0] = nnodes;",
        "c_.rec.arr = MPE__CC_HASH_INTS (indx, nnodes) * 31"
        " + MPE__CC_HASH_INTS (edges, nnodes > 0 ? indx[nnodes - 1] : 0);"]),
    "Comm_spawn": ("NONE", []),
    "Comm_spawn_multiple": ("NONE", []),
    "Comm_accept": ("NONE", []),
    "Comm_connect": ("NONE", []),
    "File_open": ("NONE", ["c_.rec.aux[0] = amode;",
                           "c_.rec.arr = mpe__cc_hash_str (filename);"]),
    "File_set_view": ("NONE", []),
    "File_set_size": ("NONE", []),
    "File_preallocate": ("NONE", []),
    "File_set_atomicity": ("NONE", ["c_.rec.aux[0] = flag != 0;"]),
    "File_seek_shared": ("NONE", ["c_.rec.aux[0] = whence;"]),
    "File_read_all": ("NONE", []),
    "File_write_all": ("NONE", []),
    "File_read_at_all": ("NONE", []),
    "File_write_at_all": ("NONE", []),
    "File_read_ordered": ("NONE", []),
    "File_write_ordered": ("NONE", []),
    "File_read_all_begin": ("NONE", []),
    "File_read_all_end": ("NONE", []),
    "File_write_all_begin": ("NONE", []),
    "File_write_all_end": ("NONE", []),
    "File_read_at_all_begin": ("NONE", []),
    "File_read_at_all_end": ("NONE", []),
    "File_write_at_all_begin": ("NONE", []),
    "File_write_at_all_end": ("NONE", []),
    "File_read_ordered_begin": ("NONE", []),
    "File_read_ordered_end": ("NONE", []),
    "File_write_ordered_begin": ("NONE", []),
    "File_write_ordered_end": ("NONE", []),
    "Win_create": ("NONE", []),
    "Win_allocate": ("NONE", []),
    "Win_allocate_shared": ("NONE", []),
    "Win_create_dynamic": ("NONE", []),
    "Win_fence": ("NONE", []),
}
# Where the communicator comes from: a parameter, or the table of files
# and windows the checker keeps (filled at open/create, emptied at
# close/free, which are wrapped for that alone).
CC_COMM_PARAMS = ["comm", "comm_old", "local_comm"]
# Nonblocking forms of the collectives above (Ineighbor_* are not).
CC_NONBLOCKING = ["Ibarrier", "Ibcast", "Ireduce", "Iallreduce", "Iscan",
                  "Iexscan", "Ireduce_scatter_block", "Ireduce_scatter",
                  "Igather", "Iscatter", "Iallgather", "Ialltoall",
                  "Igatherv", "Iscatterv", "Iallgatherv", "Ialltoallv",
                  "Ialltoallw"]
# Completion calls: a request's check is finished before MPI completes it.
CC_COMPLETE = {
    "Wait": "  mpe__cc_settle (1, request, 1);\n  return %(call)s;\n",
    "Waitall": "  mpe__cc_settle (count, array_of_requests, 1);\n"
               "  return %(call)s;\n",
    "Test": "  if (!mpe__cc_settle (1, request, 0))\n    {\n"
            "      *flag = 0;\n      return MPI_SUCCESS;\n    }\n"
            "  return %(call)s;\n",
    "Testall": "  if (!mpe__cc_settle (count, array_of_requests, 0))\n    {\n"
               "      *flag = 0;\n      return MPI_SUCCESS;\n    }\n"
               "  return %(call)s;\n",
    "Waitany": "  if (!mpe__cc_npending ())\n    return %(call)s;\n"
               "  return mpe__cc_anysome (count, array_of_requests, indx, "
               "NULL, status,\n                          NULL, NULL, NULL, 1);\n",
    "Testany": "  if (!mpe__cc_npending ())\n    return %(call)s;\n"
               "  return mpe__cc_anysome (count, array_of_requests, indx, "
               "flag, status,\n                          NULL, NULL, NULL, 0);\n",
    "Waitsome": "  if (!mpe__cc_npending ())\n    return %(call)s;\n"
                "  return mpe__cc_anysome (incount, array_of_requests, NULL, "
                "NULL, NULL,\n                          outcount, "
                "array_of_indices, array_of_statuses, 1);\n",
    "Testsome": "  if (!mpe__cc_npending ())\n    return %(call)s;\n"
                "  return mpe__cc_anysome (incount, array_of_requests, NULL, "
                "NULL, NULL,\n                          outcount, "
                "array_of_indices, array_of_statuses, 0);\n",
}
for _nb in CC_NONBLOCKING:
    _b = _nb[1].upper() + _nb[2:]
    CC_CHECKS[_nb] = CC_CHECKS[_b]
    if _b in CC_INPLACE_ALL:
        CC_INPLACE_ALL.add(_nb)
CC_TRACK = {"File_open": ("file", "fh"), "Win_create": ("win", "win"),
            "Win_allocate": ("win", "win"),
            "Win_allocate_shared": ("win", "win"),
            "Win_create_dynamic": ("win", "win")}
CC_UNTRACK = {"File_close": ("file", "fh"), "Win_free": ("win", "win")}


def cc_base(name):
    b = name[4:]
    return b[:-2] if b.endswith("_c") else b


def gen_collchk(f, idx):
    base = cc_base(f["name"])
    c = call(f)
    pn = [p.name for p in f["params"]]
    if base in CC_UNTRACK:
        kind, h = CC_UNTRACK[base]
        need(f, [h])
        return (proto(f) + "\n{\n"
                "  mpe__cc_untrack_%s (*%s);\n"
                "  return %s;\n}\n" % (kind, h, c))
    if base in CC_COMPLETE:
        return proto(f) + "\n{\n" + CC_COMPLETE[base] % {"call": c} + "}\n"
    if base not in CC_CHECKS:
        return None
    shape, stmts = CC_CHECKS[base]
    comm = next((p for p in CC_COMM_PARAMS if p in pn), None)
    if comm:
        ce = comm
    elif "fh" in pn:
        ce = "mpe__cc_file_comm (fh)"
    elif "win" in pn:
        ce = "mpe__cc_win_comm (win)"
    else:
        die("%s: checked by collchk but has no communicator" % f["name"])
    body = ["  mpe__cc_call_t c_;\n",
            "  if (mpe__cc_enter (&c_, %s, %d))\n    {\n" % (ce, idx)]
    if "root" in pn:
        body.append("      c_.rec.root = root;\n"
                    "      c_.rec.hasroot = 1;\n")
    if "op" in pn:
        body.append("      c_.rec.op = PMPI_Op_c2f (op);\n")
    if base in CC_INPLACE_ALL:
        need(f, ["sendbuf"])
        body.append("      c_.rec.inplace = sendbuf == MPI_IN_PLACE;\n")
    for st in stmts:
        body.append("      %s\n" % st)
    nonblocking = base in CC_NONBLOCKING
    body.append("      mpe__cc_%s (&c_, MPE__CC_%s);\n    }\n"
                % ("start" if nonblocking else "run", shape))
    ret = f["ret"]
    body.append("  %s rc = %s;\n" % (ret, c))
    if nonblocking:
        need(f, ["request"])
        body.append("  mpe__cc_started (&c_, rc, request);\n")
    if base in CC_TRACK:
        kind, h = CC_TRACK[base]
        need(f, [h])
        body.append("  if (rc == MPI_SUCCESS)\n"
                    "    mpe__cc_track_%s (*%s, %s);\n" % (kind, h, comm))
    body.append("  mpe__cc_leave (&c_);\n  return rc;\n")
    return proto(f) + "\n{\n" + "".join(body) + "}\n"


def main():
    if len(sys.argv) != 5:
        die("usage: gen-wrappers.py DEF EXCLUDED MPI_H_I OUTDIR")
    rows = read_list(sys.argv[1])
    pats = read_excluded(sys.argv[2])
    hdr = parse_header(sys.argv[3])
    outdir = sys.argv[4]

    listed = {r["name"] for r in rows}
    problems = []
    for name in sorted(hdr):
        if name in listed:
            continue
        if not any(fnmatch.fnmatchcase(name, p) for p in pats):
            problems.append("%s is declared in mpi.h but neither in %s nor "
                            "in %s" % (name, sys.argv[1], sys.argv[2]))
    for r in rows:
        if r["name"] not in hdr:
            problems.append("%s:%d: %s is not declared by this mpi.h"
                            % (sys.argv[1], r["line"], r["name"]))
        elif any(fnmatch.fnmatchcase(r["name"], p) for p in pats):
            problems.append("%s is both listed and excluded" % r["name"])
    if problems:
        die("the MPI function list does not match mpi.h:\n  "
            + "\n  ".join(problems))

    for r in rows:
        r["ret"], r["params"], var = hdr[r["name"]]
        if var:
            die("%s is variadic; write it by hand and exclude it"
                % r["name"])

    # Table order = list order; index is what the wrappers pass around.
    L = ["/* Generated by gen-wrappers.py from mpi-funcs.def: do not edit. */",
         "#include \"mpe/wrappers/wrap-internal.h\"", "",
         "const int mpe__wrap_nstates = %d;" % len(rows),
         "const mpe__wstate_t mpe__wrap_states[%d] = {" % len(rows)]
    for i, r in enumerate(rows):
        s0, s1 = state_events(r["state"])
        fmtstr = {"coll": "MPE__COLL_FORMAT", "rma": "MPE__RMA_FORMAT",
                  "io": "MPE__IO_FORMAT"}.get(r["kind"], "NULL")
        L.append("  { \"%s\", MPE__CLASS_%s, %d, %d, %d, \"%s\", %s },"
                 % (r["name"], r["cls"], r["state"], s0, s1, r["color"],
                    fmtstr))
    L.append("};")
    L.append("")
    for i, r in enumerate(rows):
        g = gen_lmpe(r, i)
        if g:
            L.append(g)
    with open(os.path.join(outdir, "lmpe-gen.c.tmp"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    os.replace(os.path.join(outdir, "lmpe-gen.c.tmp"),
               os.path.join(outdir, "lmpe-gen.c"))

    T = ["/* Generated by gen-wrappers.py from mpi-funcs.def: do not edit. */",
         "#include \"mpe/wrappers/tmpe-internal.h\"", ""]
    for r in rows:
        g = gen_tmpe(r)
        if g:
            T.append(g)
    with open(os.path.join(outdir, "tmpe-gen.c"), "w") as fh:
        fh.write("\n".join(T) + "\n")

    listed_bases = {cc_base(r["name"]) for r in rows}
    for b in list(CC_CHECKS) + list(CC_UNTRACK) + list(CC_COMPLETE):
        if b not in listed_bases:
            die("collchk checks MPI_%s, which the list lacks" % b)
    C = ["/* Generated by gen-wrappers.py from mpi-funcs.def: do not edit. */",
         "#include \"mpe/wrappers/collchk-internal.h\"", ""]
    names = []
    for r in rows:
        g = gen_collchk(r, len(names))
        if g:
            C.append(g)
            names.append(r["name"])
    C.append("const char *const mpe__cc_names[%d] = {" % len(names))
    C += ["  \"%s\"," % n for n in names]
    C.append("};")
    with open(os.path.join(outdir, "collchk-gen.c"), "w") as fh:
        fh.write("\n".join(C) + "\n")

    with open(os.path.join(outdir, "mpi-funcs.txt"), "w") as fh:
        for r in rows:
            fh.write("%s %s %s %d\n" % (r["name"], r["cls"], r["kind"],
                                        r["state"]))


if __name__ == "__main__":
    main()
