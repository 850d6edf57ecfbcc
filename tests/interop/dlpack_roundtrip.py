#!/usr/bin/env python3
"""DLPack round trips between jetfuse and Python array libraries, without copies.

jetfuse is reached through a small C shim (tests/interop/dlpack_shim.cpp, target jf_dlpack_shim)
loaded with ctypes; DLPack capsules are handled here as the Python protocol says:

* import (library -> jetfuse): capsule = x.__dlpack__(...), the DLManagedTensor(Versioned)* taken
  out with PyCapsule_GetPointer and given to jf::from_dlpack; on success the capsule is renamed
  "used_dltensor" ("used_dltensor_versioned") so that its destructor does not free it (jetfuse
  calls the deleter when its last handle goes away); on failure it keeps its name and frees it.
* export (jetfuse -> library): jf::to_dlpack(_versioned) wrapped in a new capsule "dltensor"
  ("dltensor_versioned") whose destructor calls the deleter unless a consumer renamed it, offered
  by an object with __dlpack__ and __dlpack_device__ (JfArray) to numpy/torch/cupy.from_dlpack.

Each step prints the data pointers and asserts they are equal (no copy), and checks values,
shapes and strides. --device cpu needs numpy; --device cuda needs CuPy, PyTorch and a GPU. When
what a part needs is missing it prints why and exits with 77 (ctest's SKIP_RETURN_CODE).

  python3 tests/interop/dlpack_roundtrip.py --build-dir build/cuda            # both parts
  python3 tests/interop/dlpack_roundtrip.py --device cpu --shim path/to/libjf_dlpack_shim.so
"""

import argparse
import ctypes
import os
import sys

SKIP = 77

DLTENSOR = b"dltensor"
DLTENSOR_VERSIONED = b"dltensor_versioned"
USED = b"used_dltensor"
USED_VERSIONED = b"used_dltensor_versioned"
KDLCPU, KDLCUDA = 1, 2
JF_DTYPES = ["bool", "int32", "int64", "float32", "float64", "int8", "int16", "uint8", "uint16", "uint32",
             "uint64"]  # jf::dtype's order

# ---- the Python C API through ctypes ----------------------------------------------------------
_api = ctypes.pythonapi
_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", _api))
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", _api))
_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_New", _api))
# In the destructor the capsule is dying: raw pointers only, no new references to it.
_IsValidRaw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

shim = None


def load_shim(path):
    global shim
    # PyDLL: the GIL stays held during calls, so producers' deleters (numpy's, CuPy's) that take
    # the GIL when jetfuse releases their tensor run safely.
    shim = ctypes.PyDLL(path)
    vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
    for name, res, args in [
        ("jfs_last_error", ctypes.c_char_p, []),
        ("jfs_cuda_available", ctypes.c_int, []),
        ("jfs_from_dlpack", vp, [vp, ctypes.c_int]),
        ("jfs_to_dlpack", vp, [vp, ctypes.c_int]),
        ("jfs_delete_dlpack", None, [vp, ctypes.c_int]),
        ("jfs_affine", vp, [vp, ctypes.c_double, ctypes.c_double]),
        ("jfs_release", None, [vp]),
        ("jfs_data", vp, [vp]),
        ("jfs_ndim", ctypes.c_int, [vp]),
        ("jfs_size", ctypes.c_int64, [vp]),
        ("jfs_shape", None, [vp, i64p]),
        ("jfs_strides", None, [vp, i64p]),
        ("jfs_dtype", ctypes.c_int, [vp]),
        ("jfs_is_cuda", ctypes.c_int, [vp]),
        ("jfs_synchronize", ctypes.c_int, []),
        ("jfs_jagged_from_dlpack", vp, [vp, vp, ctypes.c_int]),
        ("jfs_jagged_release", None, [vp]),
        ("jfs_jagged_length", ctypes.c_int64, [vp]),
        ("jfs_jagged_offsets", vp, [vp]),
        ("jfs_jagged_content", vp, [vp]),
        ("jfs_jagged_sums", vp, [vp]),
        ("jfs_jagged_doubled_to_dlpack", ctypes.c_int, [vp, ctypes.c_int, ctypes.POINTER(vp)]),
    ]:
        f = getattr(shim, name)
        f.restype, f.argtypes = res, args


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # An exported capsule nobody consumed still has its name: free the tensor (the protocol).
    for name, versioned in ((DLTENSOR, 0), (DLTENSOR_VERSIONED, 1)):
        if _IsValidRaw(capsule, name):
            shim.jfs_delete_dlpack(_GetPointerRaw(capsule, name), versioned)


class JfError(RuntimeError):
    pass


class LegacyProducer:
    """Offers only unversioned capsules (a pre-DLPack-1.0 producer): consumers fall back to them."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.arr.__dlpack__(stream=stream)


class JfArray:
    """A jetfuse array handle (jf::array_base) owned by Python; a DLPack producer."""

    def __init__(self, handle):
        self.h = handle

    def __del__(self):
        if shim is not None and self.h:
            shim.jfs_release(self.h)
            self.h = None

    @property
    def data_ptr(self):
        return shim.jfs_data(self.h) or 0

    @property
    def shape(self):
        n = shim.jfs_ndim(self.h)
        out = (ctypes.c_int64 * max(n, 1))()
        shim.jfs_shape(self.h, out)
        return tuple(out[:n])

    @property
    def strides(self):  # in elements
        n = shim.jfs_ndim(self.h)
        out = (ctypes.c_int64 * max(n, 1))()
        shim.jfs_strides(self.h, out)
        return tuple(out[:n])

    @property
    def dtype(self):
        return JF_DTYPES[shim.jfs_dtype(self.h)]

    def affine(self, scale, shift):
        """scale * self + shift, computed by jetfuse (one fused kernel) into a new array."""
        h = shim.jfs_affine(self.h, scale, shift)
        if not h:
            raise JfError(shim.jfs_last_error().decode())
        return JfArray(h)

    def __dlpack_device__(self):
        return (KDLCUDA, 0) if shim.jfs_is_cuda(self.h) else (KDLCPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # jf::to_dlpack waits for jetfuse's stream: the data are complete for any consumer stream.
        if copy:
            raise BufferError("jetfuse exports without copies only")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("jetfuse exports on the array's own device only")
        versioned = max_version is not None and max_version[0] >= 1
        ptr = shim.jfs_to_dlpack(self.h, 1 if versioned else 0)
        if not ptr:
            raise BufferError(shim.jfs_last_error().decode())
        return _New(ptr, DLTENSOR_VERSIONED if versioned else DLTENSOR, ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def jf_from_dlpack(x, legacy=False, **dlpack_kwargs):
    """A JfArray viewing x's memory (any DLPack producer); legacy: ask for a DLManagedTensor."""
    try:
        if legacy:
            raise TypeError
        capsule = x.__dlpack__(max_version=(1, 1), **dlpack_kwargs)
    except TypeError:  # a producer older than DLPack 1.0's Python protocol
        capsule = x.__dlpack__(**dlpack_kwargs)
    name = _GetName(capsule)
    if name not in (DLTENSOR, DLTENSOR_VERSIONED):
        raise ValueError(f"not a DLPack capsule: {name!r}")
    versioned = name == DLTENSOR_VERSIONED
    h = shim.jfs_from_dlpack(_GetPointer(capsule, name), 1 if versioned else 0)
    if not h:  # the capsule keeps its name: its destructor calls the deleter
        raise JfError(shim.jfs_last_error().decode())
    _SetName(capsule, USED_VERSIONED if versioned else USED)  # jetfuse owns it now
    return JfArray(h), versioned


def _capsule(x, legacy):
    try:
        if legacy:
            raise TypeError
        capsule = x.__dlpack__(max_version=(1, 1))
    except TypeError:
        capsule = x.__dlpack__()
    name = _GetName(capsule)
    if name not in (DLTENSOR, DLTENSOR_VERSIONED):
        raise ValueError(f"not a DLPack capsule: {name!r}")
    return capsule, name


class JfLists:
    """A jetfuse jagged array (offsets + content) owned by Python."""

    def __init__(self, handle):
        self.h = handle

    def __del__(self):
        if shim is not None and self.h:
            shim.jfs_jagged_release(self.h)
            self.h = None

    def __len__(self):
        return shim.jfs_jagged_length(self.h)

    @property
    def offsets(self):
        return JfArray(shim.jfs_jagged_offsets(self.h))

    @property
    def content(self):
        return JfArray(shim.jfs_jagged_content(self.h))

    def sums(self):
        """jf::sum(x * 2 + 1, -1): one value per list, a dense jetfuse array."""
        h = shim.jfs_jagged_sums(self.h)
        if not h:
            raise JfError(shim.jfs_last_error().decode())
        return JfArray(h)

    def doubled(self, device):
        """x * 2 computed by jetfuse, exported as two DLPack producers (offsets, content)."""
        out = (ctypes.c_void_p * 2)()
        if shim.jfs_jagged_doubled_to_dlpack(self.h, 0, out) != 0:
            raise JfError(shim.jfs_last_error().decode())
        return tuple(CapsuleProducer(_New(p, DLTENSOR, ctypes.cast(_capsule_destructor, ctypes.c_void_p)), device)
                     for p in out)


class CapsuleProducer:
    """Hands one exported capsule to a consumer's from_dlpack."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        return self.capsule


def jf_jagged_from_dlpack(offsets, content, legacy=False):
    """A JfLists viewing the producers' offsets and content: both taken, or neither."""
    co, no = _capsule(offsets, legacy)
    cc, nc = _capsule(content, legacy)
    if no != nc:
        raise ValueError("offsets and content from producers of different DLPack versions")
    versioned = no == DLTENSOR_VERSIONED
    h = shim.jfs_jagged_from_dlpack(_GetPointer(co, no), _GetPointer(cc, nc), 1 if versioned else 0)
    if not h:  # both capsules keep their names: their destructors free them
        raise JfError(shim.jfs_last_error().decode())
    for c in (co, cc):
        _SetName(c, USED_VERSIONED if versioned else USED)
    return JfLists(h)


def check_lists(off, content, jl, sums, doubled_off, doubled_content):
    """Per-list values against the producer's arrays (numpy arrays on the host)."""
    import numpy as np
    assert len(jl) == len(off) - 1 == len(sums) == len(doubled_off) - 1
    for i in range(len(off) - 1):
        lst = content[off[i]:off[i + 1]]
        np.testing.assert_allclose(sums[i], (2 * lst.astype(np.float64) + 1).sum(), rtol=2e-5, atol=1e-4)
        np.testing.assert_array_equal(doubled_content[doubled_off[i]:doubled_off[i + 1]], 2 * lst)


def show(step, *pairs):
    print(f"  {step}: " + ", ".join(f"{k} 0x{v:x}" for k, v in pairs))


# ---- CPU: numpy -------------------------------------------------------------------------------
def run_cpu():
    try:
        import numpy as np
    except ImportError:
        print("SKIP cpu part: numpy is not installed")
        return SKIP
    print(f"numpy {np.__version__} <-> jetfuse")

    def ptr(a):
        return a.__array_interface__["data"][0]

    dtypes = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float32, np.float64]
    for dt in dtypes:
        x = (np.arange(12) % 3 == 1) if dt is np.bool_ else np.arange(-6, 6).astype(dt)  # unsigned: wrapped
        x = x.reshape(3, 4)
        jx, versioned = jf_from_dlpack(x)
        show(f"numpy {np.dtype(dt).name} -> jetfuse ({'versioned' if versioned else 'legacy'})",
             ("numpy", ptr(x)), ("jetfuse", jx.data_ptr))
        assert jx.data_ptr == ptr(x), "numpy -> jetfuse copied"
        assert jx.shape == (3, 4) and jx.dtype == np.dtype(dt).name, (jx.shape, jx.dtype)
        back = np.from_dlpack(jx)
        show("jetfuse -> numpy", ("jetfuse", jx.data_ptr), ("numpy", ptr(back)))
        assert ptr(back) == ptr(x), "jetfuse -> numpy copied"
        assert back.dtype == x.dtype and back.shape == x.shape
        np.testing.assert_array_equal(back, x)
        if dt is not np.bool_:
            y = jx.affine(2, 1)
            yn = np.from_dlpack(y)
            show("2*x+1 in jetfuse -> numpy", ("jetfuse", y.data_ptr), ("numpy", ptr(yn)))
            assert ptr(yn) == y.data_ptr, "jetfuse result -> numpy copied"
            assert yn.dtype == x.dtype, yn.dtype
            np.testing.assert_array_equal(yn, 2 * x + 1)
            back[0, 0] = 42  # writes are shared by all three
            assert x[0, 0] == 42
        del jx, back

    # The legacy struct (DLManagedTensor) both ways.
    x = np.linspace(0, 1, 6).reshape(2, 3)
    jx, versioned = jf_from_dlpack(x, legacy=True)
    assert not versioned and jx.data_ptr == ptr(x)
    lx = np.from_dlpack(LegacyProducer(jx.affine(2, 1)))
    np.testing.assert_array_equal(lx, 2 * x + 1)
    show("legacy DLManagedTensor both ways", ("numpy", ptr(x)), ("jetfuse", jx.data_ptr))
    del jx

    # Strided views both ways.
    base = np.arange(30, dtype=np.float64).reshape(5, 6)
    for label, v in [("x[::2, ::-1]", base[::2, ::-1]), ("x.T", base.T), ("x[1:4, 1::3]", base[1:4, 1::3])]:
        jv, _ = jf_from_dlpack(v)
        want_strides = tuple(s // v.itemsize for s in v.strides)
        show(f"numpy view {label} -> jetfuse", ("numpy", ptr(v)), ("jetfuse", jv.data_ptr))
        assert jv.data_ptr == ptr(v) and jv.strides == want_strides, (jv.strides, want_strides)
        nv = np.from_dlpack(jv)
        assert ptr(nv) == ptr(v) and nv.strides == v.strides
        np.testing.assert_array_equal(nv, v)
        r = np.from_dlpack(jv.affine(0.5, -1))
        np.testing.assert_array_equal(r, 0.5 * v - 1)

    # 0-d, size 0, size 1.
    s = np.array(2.5)
    js, _ = jf_from_dlpack(s)
    assert js.shape == () and js.data_ptr == ptr(s)
    assert np.from_dlpack(js.affine(2, 1)) == 6.0
    e = np.zeros((0, 3), dtype=np.int32)
    je, _ = jf_from_dlpack(e)
    assert je.shape == (0, 3)
    assert np.from_dlpack(je).shape == (0, 3)
    o = np.array([7], dtype=np.int64)
    jo, _ = jf_from_dlpack(o)
    assert np.from_dlpack(jo.affine(3, 0))[0] == 21

    # Refused dtypes leave the capsule to its producer (no leak, no double free).
    for bad in (np.arange(4, dtype=np.float16), np.arange(4, dtype=np.complex64)):
        try:
            jf_from_dlpack(bad)
        except JfError as err:
            print(f"  refused {bad.dtype}: {err}")
        else:
            raise AssertionError(f"{bad.dtype} was accepted")
    # An export nobody consumes is freed by its capsule's destructor.
    jb, _ = jf_from_dlpack(base)
    unused = jb.__dlpack__(max_version=(1, 1))
    del unused, jb
    unused = jf_from_dlpack(base)[0].__dlpack__()
    del unused
    # Jagged arrays: numpy offsets (not starting at 0) + content -> jetfuse -> numpy, no copies.
    rng = np.random.default_rng(7)
    counts = rng.poisson(2.0, 1001)
    counts[::97] = 0
    off = np.concatenate([[5], 5 + np.cumsum(counts)]).astype(np.int64)
    content = rng.normal(size=int(off[-1]) + 2).astype(np.float32)
    jl = jf_jagged_from_dlpack(off, content)
    show("numpy offsets + content -> jetfuse jagged", ("offsets", ptr(off)), ("jetfuse", jl.offsets.data_ptr),
         ("content", ptr(content)), ("jetfuse", jl.content.data_ptr))
    assert jl.offsets.data_ptr == ptr(off) and jl.content.data_ptr == ptr(content), "jagged import copied"
    sums = np.from_dlpack(jl.sums())
    do, dc = (np.from_dlpack(p) for p in jl.doubled((KDLCPU, 0)))
    check_lists(off, content, jl, sums, do, dc)
    j32 = jf_jagged_from_dlpack(off.astype(np.int32), content)  # int32 offsets: widened (a copy of them)
    assert j32.content.data_ptr == ptr(content) and j32.offsets.dtype == "int64"
    np.testing.assert_array_equal(np.from_dlpack(j32.sums()), sums)
    try:
        jf_jagged_from_dlpack(np.array([0, 2, 10**9], dtype=np.int64), content)
    except JfError as err:
        print(f"  refused offsets past the content: {err}")
    else:
        raise AssertionError("offsets past the content were accepted")
    del jl, j32
    print("cpu part: OK")
    return 0


# ---- GPU: CuPy and PyTorch ------------------------------------------------------------------------
def run_cuda():
    missing = []
    try:
        import cupy as cp
    except ImportError:
        missing.append("cupy")
    try:
        import torch
    except ImportError:
        missing.append("torch")
    if missing:
        print(f"SKIP cuda part: {' and '.join(missing)} not installed")
        return SKIP
    if not shim.jfs_cuda_available():
        print("SKIP cuda part: jetfuse finds no CUDA GPU or driver (or was built without CUDA)")
        return SKIP
    if not torch.cuda.is_available():
        print("SKIP cuda part: PyTorch has no CUDA device")
        return SKIP
    import numpy as np
    print(f"CuPy {cp.__version__}, PyTorch {torch.__version__} <-> jetfuse")

    def sync():  # producers' work is complete before jetfuse reads it
        cp.cuda.Device(0).synchronize()
        torch.cuda.synchronize()

    # PyTorch's uint16, uint32 and uint64 have few operations: those come back through CuPy only.
    torch_dtypes = {"bool": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                    "int64": torch.int64, "uint8": torch.uint8, "float32": torch.float32, "float64": torch.float64}
    for name in JF_DTYPES:
        x = (cp.arange(12) % 3 == 1) if name == "bool" else cp.arange(-6, 6).astype(name)
        x = x.reshape(3, 4)
        sync()
        try:
            jx, versioned = jf_from_dlpack(x)
        except JfError as err:
            if name == "bool":  # CuPy before 13 exports bool without kDLBool
                print(f"  note: CuPy {cp.__version__} exports bool as something else: {err}")
                continue
            raise
        show(f"CuPy {name} -> jetfuse ({'versioned' if versioned else 'legacy'})",
             ("cupy", x.data.ptr), ("jetfuse", jx.data_ptr))
        assert jx.data_ptr == x.data.ptr, "CuPy -> jetfuse copied"
        if name not in torch_dtypes:
            c = cp.from_dlpack(jx)
            show("jetfuse -> CuPy", ("jetfuse", jx.data_ptr), ("cupy", c.data.ptr))
            assert c.data.ptr == x.data.ptr and c.dtype == x.dtype, "jetfuse -> CuPy copied"
            y = jx.affine(2, 1)
            np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(y)), cp.asnumpy(2 * x + 1))
            continue
        t = torch.from_dlpack(jx)
        show("jetfuse -> PyTorch", ("jetfuse", jx.data_ptr), ("torch", t.data_ptr()))
        assert t.data_ptr() == x.data.ptr, "jetfuse -> PyTorch copied"
        assert t.dtype == torch_dtypes[name] and tuple(t.shape) == (3, 4) and t.is_cuda
        np.testing.assert_array_equal(t.cpu().numpy(), cp.asnumpy(x))
        if name != "bool":
            y = jx.affine(2, 1)
            ty = torch.from_dlpack(y)
            show("2*x+1 in jetfuse -> PyTorch", ("jetfuse", y.data_ptr), ("torch", ty.data_ptr()))
            assert ty.data_ptr() == y.data_ptr, "jetfuse result -> PyTorch copied"
            np.testing.assert_array_equal(ty.cpu().numpy(), cp.asnumpy(2 * x + 1))
            cy = cp.from_dlpack(y)
            assert cy.data.ptr == y.data_ptr, "jetfuse result -> CuPy copied"

    # PyTorch -> jetfuse -> CuPy, strided views.
    base = torch.arange(30, dtype=torch.float64, device="cuda").reshape(5, 6)
    for label, v in [("t[::2]", base[::2]), ("t.T", base.t()), ("t[1:4, 1::3]", base[1:4, 1::3])]:
        sync()
        jv, _ = jf_from_dlpack(v)
        show(f"PyTorch view {label} -> jetfuse", ("torch", v.data_ptr()), ("jetfuse", jv.data_ptr))
        assert jv.data_ptr == v.data_ptr() and jv.strides == tuple(v.stride()), (jv.strides, v.stride())
        cv = cp.from_dlpack(jv)
        show("jetfuse -> CuPy", ("jetfuse", jv.data_ptr), ("cupy", cv.data.ptr))
        assert cv.data.ptr == v.data_ptr() and tuple(s // 8 for s in cv.strides) == tuple(v.stride())
        np.testing.assert_array_equal(cp.asnumpy(cv), v.cpu().numpy())
        r = torch.from_dlpack(jv.affine(2, 1))
        np.testing.assert_array_equal(r.cpu().numpy(), (2 * v + 1).cpu().numpy())
    # A CuPy transposed view -> jetfuse -> PyTorch keeps its strides.
    xc = cp.arange(12, dtype=cp.float32).reshape(3, 4).T
    sync()
    jt, _ = jf_from_dlpack(xc)
    tt = torch.from_dlpack(jt)
    assert tt.data_ptr() == xc.data.ptr and tuple(tt.stride()) == (1, 4), tt.stride()
    np.testing.assert_array_equal(tt.cpu().numpy(), cp.asnumpy(xc))
    # Writes from PyTorch land in CuPy's memory through jetfuse's handle.
    tt[0, 0] = 100
    torch.cuda.synchronize()
    assert float(xc[0, 0]) == 100.0
    # Jagged: CuPy offsets + content -> jetfuse (per-list sums) -> PyTorch, and jetfuse's x * 2 ->
    # a PyTorch nested (jagged-layout) tensor over the same device memory.
    counts = cp.random.poisson(2.0, 100003)
    counts[::101] = 0
    off = cp.concatenate([cp.zeros(1, dtype=cp.int64), cp.cumsum(counts)]).astype(cp.int64)
    content = cp.random.standard_normal(int(off[-1])).astype(cp.float32)
    sync()
    jl = jf_jagged_from_dlpack(off, content)
    show("CuPy offsets + content -> jetfuse jagged", ("offsets", off.data.ptr), ("jetfuse", jl.offsets.data_ptr),
         ("content", content.data.ptr), ("jetfuse", jl.content.data_ptr))
    assert jl.offsets.data_ptr == off.data.ptr and jl.content.data_ptr == content.data.ptr, "jagged import copied"
    js = jl.sums()
    ts = torch.from_dlpack(js)
    show("per-list sums in jetfuse -> PyTorch", ("jetfuse", js.data_ptr), ("torch", ts.data_ptr()))
    assert ts.data_ptr() == js.data_ptr
    to, tc = (torch.from_dlpack(p) for p in jl.doubled((KDLCUDA, 0)))
    nt = torch.nested.nested_tensor_from_jagged(tc.unsqueeze(-1), offsets=to)
    show("x * 2 in jetfuse -> PyTorch nested tensor", ("offsets", to.data_ptr()), ("nested", nt.offsets().data_ptr()),
         ("values", tc.data_ptr()), ("nested", nt.values().data_ptr()))
    assert nt.values().data_ptr() == tc.data_ptr() and nt.offsets().data_ptr() == to.data_ptr()
    assert nt.size(0) == len(jl)
    check_lists(cp.asnumpy(off), cp.asnumpy(content), jl, ts.cpu().numpy(), to.cpu().numpy(), tc.cpu().numpy())
    del jl
    print("cuda part: OK")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shim", help="path of libjf_dlpack_shim.so")
    ap.add_argument("--build-dir", help="a jetfuse build directory (the shim is BUILD/tests/interop/...)")
    ap.add_argument("--device", choices=["cpu", "cuda", "all"], default="all")
    args = ap.parse_args()
    path = args.shim or os.path.join(args.build_dir or "build/dev", "tests", "interop", "libjf_dlpack_shim.so")
    if not os.path.exists(path):
        print(f"error: {path} does not exist: build the jf_dlpack_shim target", file=sys.stderr)
        return 2
    load_shim(path)
    results = []
    if args.device in ("cpu", "all"):
        results.append(run_cpu())
    if args.device in ("cuda", "all"):
        results.append(run_cuda())
    return 0 if 0 in results else SKIP


if __name__ == "__main__":
    sys.exit(main())
