# SPDX-License-Identifier: BSD-2-Clause
# chrome_tail.py PERF.DATA...: from `perf record -e cpu-clock -F 20000` runs of a
# Chrome conversion, each run's span from the scanner thread's last sample
# (scan_event, batch_fill, ...) to the writer's first (pc_jw_*, col_job, ...),
# the CPU samples in it, the reader's (main thread's) CPU in it, and medians.
import sys,subprocess,collections,statistics
W=('pc_jw_','col_job','string_rest','put_string','write_processed','mk_run','walk','pc_pv_emit','write_marker')
def one(data):
    out=subprocess.run(['perf','script','-i',data,'-F','tid,time,ip,sym'],capture_output=True,text=True).stdout
    rows=[]
    for l in out.split('\n'):
        p=l.split(None,3)
        if len(p)<3: continue
        rows.append((int(p[0]),float(p[1].rstrip(':')),p[3].strip() if len(p)>3 else ''))
    t0=rows[0][1]
    scan=collections.Counter(tid for tid,t,s in rows if s.startswith(('scan_event','batch_fill','check_value')))
    st=scan.most_common(1)[0][0]
    # the scanner's last sample while scanning
    send=max(t for tid,t,s in rows if tid==st and s.startswith(('scan_event','batch_fill','check_value','scan_value','pc_jscan','batch_fix','skip_args','pc_chrome_scan')))
    wst=min(t for tid,t,s in rows if s.startswith(W))
    # cpu samples between send and wst per thread
    cpu=collections.Counter(tid for tid,t,s in rows if send<t<wst)
    main=rows[0][0]
    return (send-t0)*1000,(wst-t0)*1000,(rows[-1][1]-t0)*1000,sum(cpu.values()),cpu[main]*0.05
res=[one(d) for d in sys.argv[1:]]
for d,r in zip(sys.argv[1:],res): print(d,'scan_end %.1f writer %.1f end %.1f tail %.2f ms samples_in_tail %d'%(r[0],r[1],r[2],r[1]-r[0],r[3]))
print('median reader CPU in tail %.2f ms'%statistics.median(r[4] for r in res))
print('median tail %.2f ms, median total %.1f ms, median tail samples %d'%(statistics.median(r[1]-r[0] for r in res),statistics.median(r[2] for r in res),statistics.median(r[3] for r in res)))
