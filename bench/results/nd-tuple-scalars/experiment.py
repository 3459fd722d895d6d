# SPDX-License-Identifier: Apache-2.0
"""The experiment behind docs/decisions.md, "GatherND: a tuple's components
as scalars": nd-scalars' per-tuple pass (indices int64 [4194304, 2] into
data float32 [4096, 4096]) in forms of one kernel, outside the library, on
one OpenCL platform; best of 5 launches in 3 rounds, ms, and the gather
over the positions checked against NumPy.

  pass_dyn   the library's pass before: k and the (dim, stride) list read
             from a buffer, `v == s ? 0 : v` and `off = 0` under the branch
  pass_k2    k = 2 a constant, dims and strides as scalar arguments, the
             position selected after the loop
  pass_K     k a build-time constant, the list read from a buffer
  pass_Kt    as pass_K with the batch position t / n (a division)
  pass_Kc    as pass_K from __constant memory
  pass_K2d   2-D NDRange (no division), the list copied to private memory
  pass_Kv / pass_dynv  the list as a by-value ulong16, k constant / not
  pass_Ks    k constant, a by-value struct, the old select form
  k2_2d, k2s as pass_k2 over a 2-D NDRange / with a by-value struct
  k2sel      as pass_k2 in the old select form
  dyn2, K2b  the new form with the list read from a buffer, k not / k
             constant
  Ks2        the new form with a by-value struct, k constant, 2-D: the form
             kept (kernels/gather_nd.cl takes scalar arguments)
  gath       the gather over the positions; fused_*: pass and gather as
             one kernel

Needs PyOpenCL and NumPy (bench/requirements.txt):
  python3 experiment.py Portable host     # POCL, host memory in place
  OCL_ICD_VENDORS=... python3 experiment.py Intel host
"""
import warnings
warnings.simplefilter('ignore')
import pyopencl as cl, numpy as np, time, sys
plat_want=sys.argv[1]; mode=sys.argv[2] if len(sys.argv)>2 else 'host'
plat=[p for p in cl.get_platforms() if plat_want in p.name][0]
dev=plat.get_devices()[0]; ctx=cl.Context([dev]); q=cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
N=4096; M=4194304
rng=np.random.default_rng(1)
data=rng.random((N,N),dtype=np.float32)
idx=rng.integers(-N,N,size=(M,2),dtype=np.int64)
mf=cl.mem_flags
if mode=='host':
  dbuf=cl.Buffer(ctx,mf.READ_ONLY|mf.USE_HOST_PTR,hostbuf=data)
  ibuf=cl.Buffer(ctx,mf.READ_ONLY|mf.USE_HOST_PTR,hostbuf=idx)
  outh=np.empty(M,np.float32); obuf=cl.Buffer(ctx,mf.WRITE_ONLY|mf.USE_HOST_PTR,hostbuf=outh)
  posh=np.empty(M,np.int32); pbuf=cl.Buffer(ctx,mf.READ_WRITE|mf.USE_HOST_PTR,hostbuf=posh)
else:
  dbuf=cl.Buffer(ctx,mf.READ_ONLY|mf.COPY_HOST_PTR,hostbuf=data)
  ibuf=cl.Buffer(ctx,mf.READ_ONLY|mf.COPY_HOST_PTR,hostbuf=idx)
  obuf=cl.Buffer(ctx,mf.WRITE_ONLY,M*4); pbuf=cl.Buffer(ctx,mf.READ_WRITE,M*4)
err=cl.Buffer(ctx,mf.READ_WRITE|mf.COPY_HOST_PTR,hostbuf=np.zeros(1,np.int32))
geom=np.array([2,N,N,N,1],np.uint64); gbuf=cl.Buffer(ctx,mf.READ_ONLY|mf.COPY_HOST_PTR,hostbuf=geom)
src=r'''
ulong pos1(long v, ulong s){ ulong u=(ulong)v + (v<0? s:0); return u< s? u : s; }
__kernel void pass_dyn(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong k=g[0]; ulong off=0; int none=0;
 for(ulong i=0;i<k;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*k+i],s); none|=v==s; off+=(v==s?0:v)*g[2+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)off; }
__kernel void pass_k2(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,ulong s0,ulong st0,ulong s1){
 size_t t=get_global_id(0); if(t>=count) return;
 ulong a=pos1(idx[2*t],s0), b=pos1(idx[2*t+1],s1); int none=(a==s0)|(b==s1);
 if(none){*err=1;} pos[t]=none?0:(int)(a*st0+b); }
__kernel void pass_K(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=(v==s?0:v)*g[2+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)off; }
__kernel void pass_Kt(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,ulong n, ulong axis_stride,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=(v==s?0:v)*g[2+2*i];}
 ulong first = t / n * axis_stride;
 if(none){*err=1; off=0;} pos[t]=(int)(first+off); }
__kernel void pass_Kc(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,__constant ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=(v==s?0:v)*g[2+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)off; }
__kernel void pass_K2d(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong n,ulong axis_stride,__global const ulong*restrict g){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=n) return; 
 ulong gg[2*K]; for(int i=0;i<2*K;i++) gg[i]=g[1+i];
 size_t t=o*n+j; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=gg[2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=(v==s?0:v)*gg[1+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)(o*axis_stride+off); }
__kernel void pass_Kv(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong n,ulong axis_stride,ulong16 gv){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=n) return; 
 ulong gg[16]; vstore16(gv,0,gg);
 size_t t=o*n+j; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=gg[2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=(v==s?0:v)*gg[1+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)(o*axis_stride+off); }
__kernel void pass_dynv(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong n,ulong axis_stride,ulong k,ulong16 gv){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=n) return; 
 ulong gg[16]; vstore16(gv,0,gg);
 size_t t=o*n+j; ulong off=0; int none=0;
 for(ulong i=0;i<k;i++){ ulong s=gg[2*i]; ulong v=pos1(idx[t*k+i],s); none|=v==s; off+=(v==s?0:v)*gg[1+2*i];}
 if(none){*err=1; off=0;} pos[t]=(int)(o*axis_stride+off); }
typedef struct { ulong n, axis_stride, s0, st0, s1, st1, s2, st2; } ndg;
#define COMP(I) { ulong v=pos1(idx[t*K+I],g.s##I); none|=v==g.s##I; off+=(v==g.s##I?0:v)*g.st##I; }
__kernel void pass_Ks(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ndg g){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=g.n) return; 
 size_t t=o*g.n+j; ulong off=0; int none=0;
 COMP(0)
#if K>1
 COMP(1)
#endif
#if K>2
 COMP(2)
#endif
 if(none){*err=1; off=0;} pos[t]=(int)(o*g.axis_stride+off); }
__kernel void k2_2d(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,ulong s0,ulong st0,ulong s1){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=count) return; size_t t=o*count+j;
 ulong a=pos1(idx[2*t],s0), b=pos1(idx[2*t+1],s1); int none=(a==s0)|(b==s1);
 if(none){*err=1;} pos[t]=none?0:(int)(a*st0+b); }
__kernel void k2s(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ndg g){
 size_t t=get_global_id(0); if(t>=g.n) return;
 ulong a=pos1(idx[2*t],g.s0), b=pos1(idx[2*t+1],g.s1); int none=(a==g.s0)|(b==g.s1);
 if(none){*err=1;} pos[t]=none?0:(int)(a*g.st0+b); }
__kernel void k2sel(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,ulong s0,ulong st0,ulong s1){
 size_t t=get_global_id(0); if(t>=count) return; ulong off=0; int none=0;
 { ulong v=pos1(idx[2*t],s0); none|=v==s0; off+=(v==s0?0:v)*st0; }
 { ulong v=pos1(idx[2*t+1],s1); none|=v==s1; off+=(v==s1?0:v); }
 if(none){*err=1; off=0;} pos[t]=(int)off; }
__kernel void dyn2(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong k=g[0]; ulong off=0; int none=0;
 for(ulong i=0;i<k;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*k+i],s); none|=v==s; off+=v*g[2+2*i];}
 if(none) *err=1; pos[t]=none?0:(int)off; }
__kernel void K2b(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ulong count,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong off=0; int none=0;
 for(ulong i=0;i<K;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*K+i],s); none|=v==s; off+=v*g[2+2*i];}
 if(none) *err=1; pos[t]=none?0:(int)off; }
__kernel void Ks2(__global const long*restrict idx,__global volatile int*err,__global int*restrict pos,ndg g){
 size_t j=get_global_id(0), o=get_global_id(1); if(j>=g.n) return; 
 size_t t=o*g.n+j; ulong off=0; int none=0;
#define C2(I) { ulong v=pos1(idx[t*K+I],g.s##I); none|=v==g.s##I; off+=v*g.st##I; }
 C2(0)
#if K>1
 C2(1)
#endif
 if(none) *err=1; pos[t]=none?0:(int)(o*g.axis_stride+off); }
__kernel void gath(__global const float*restrict d,__global const int*restrict pos,__global float*restrict o,ulong count){
 size_t t=get_global_id(0); if(t>=count) return; o[t]=d[pos[t]]; }
__kernel void fused_k2(__global const float*restrict d,__global const long*restrict idx,__global volatile int*err,__global float*restrict o,ulong count,ulong s0,ulong st0,ulong s1){
 size_t t=get_global_id(0); if(t>=count) return;
 ulong a=pos1(idx[2*t],s0), b=pos1(idx[2*t+1],s1); int none=(a==s0)|(b==s1);
 if(none){*err=1; return;} o[t]=d[a*st0+b]; }
__kernel void fused_dyn(__global const float*restrict d,__global const long*restrict idx,__global volatile int*err,__global float*restrict o,ulong count,__global const ulong*restrict g){
 size_t t=get_global_id(0); if(t>=count) return; ulong k=g[0]; ulong off=0; int none=0;
 for(ulong i=0;i<k;i++){ ulong s=g[1+2*i]; ulong v=pos1(idx[t*k+i],s); none|=v==s; off+=(v==s?0:v)*g[2+2*i];}
 if(none){*err=1; return;} o[t]=d[off]; }
'''
gv=np.zeros(1,cl.cltypes.ulong16); gv[0][0]=N; gv[0][1]=N; gv[0][2]=N; gv[0][3]=1
gs=np.zeros(8,np.uint64); gs[:6]=[M,0,N,N,N,1]; gs=gs.tobytes()
prg=cl.Program(ctx,src).build(options='-DK=2')
U=np.uint64
runs={
 'pass_dyn':lambda: prg.pass_dyn(q,(M,),(4096,),ibuf,err,pbuf,U(M),gbuf),
 'pass_k2':lambda: prg.pass_k2(q,(M,),(4096,),ibuf,err,pbuf,U(M),U(N),U(N),U(N)),
 'pass_K':lambda: prg.pass_K(q,(M,),(4096,),ibuf,err,pbuf,U(M),gbuf),
 'pass_Kt':lambda: prg.pass_Kt(q,(M,),(4096,),ibuf,err,pbuf,U(M),U(M),U(0),gbuf),
 'pass_Kc':lambda: prg.pass_Kc(q,(M,),(4096,),ibuf,err,pbuf,U(M),gbuf),
 'pass_K2d':lambda: prg.pass_K2d(q,(M,1),(4096,1),ibuf,err,pbuf,U(M),U(0),gbuf),
 'pass_Kv':lambda: prg.pass_Kv(q,(M,1),(4096,1),ibuf,err,pbuf,U(M),U(0),gv),
 'pass_dynv':lambda: prg.pass_dynv(q,(M,1),(4096,1),ibuf,err,pbuf,U(M),U(0),U(2),gv),
 'pass_Ks':lambda: prg.pass_Ks(q,(M,1),(4096,1),ibuf,err,pbuf,gs),
 'k2_2d':lambda: prg.k2_2d(q,(M,1),(4096,1),ibuf,err,pbuf,U(M),U(N),U(N),U(N)),
 'k2s':lambda: prg.k2s(q,(M,),(4096,),ibuf,err,pbuf,gs),
 'k2sel':lambda: prg.k2sel(q,(M,),(4096,),ibuf,err,pbuf,U(M),U(N),U(N),U(N)),
 'dyn2':lambda: prg.dyn2(q,(M,),(4096,),ibuf,err,pbuf,U(M),gbuf),
 'K2b':lambda: prg.K2b(q,(M,),(4096,),ibuf,err,pbuf,U(M),gbuf),
 'Ks2':lambda: prg.Ks2(q,(M,1),(4096,1),ibuf,err,pbuf,gs),
 'gath':lambda: prg.gath(q,(M,),(4096,),dbuf,pbuf,obuf,U(M)),
 'fused_k2':lambda: prg.fused_k2(q,(M,),(4096,),dbuf,ibuf,err,obuf,U(M),U(N),U(N),U(N)),
 'fused_dyn':lambda: prg.fused_dyn(q,(M,),(4096,),dbuf,ibuf,err,obuf,U(M),gbuf),
}
res={k:[] for k in runs}
for r in range(3):
  for k,f in runs.items():
    f().wait()
    best=1e9
    for i in range(5):
      t0=time.perf_counter(); f().wait(); best=min(best,time.perf_counter()-t0)
    res[k].append(best*1e3)
ref=data.reshape(-1)[((idx[:,0]%N)*N+(idx[:,1]%N))]
o=np.empty(M,np.float32); cl.enqueue_copy(q,o,obuf); 
print(plat_want,mode,' '.join(f"{k} {min(v):.2f}" for k,v in res.items()), 'ok' if np.array_equal(o,ref) else 'MISMATCH')
