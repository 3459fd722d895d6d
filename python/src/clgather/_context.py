# SPDX-License-Identifier: Apache-2.0
"""Context: one device, its programs, its settings; and the operators."""

import collections.abc
import ctypes
import operator
import os
import threading

import numpy as np

from . import _errors, _host, _lib, _pyopencl

lib = _lib.lib

# clg_device_type value -> its name in lower case ("cpu", "gpu", ...), from
# the header's enum.
_DEVICE_TYPES = {value: name.lower()
                 for name, value in _lib.enum("clg_device_type").items()}


def _params_item(name, value):
    """One "field=value" item of a params mapping: a known field and an
    integer (not a bool), so that no key or value can carry further
    items into the text."""
    if type(name) is not str or name not in _lib.PARAM_NAMES:
        _errors.raise_status(
            "INVALID_ARGUMENT", "params: %r is not a field (%s)" %
            (name, ", ".join(_lib.PARAM_NAMES)))
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("params[%r] must be an integer, not a bool" % name)
    try:
        return "%s=%d" % (name, operator.index(value))
    except TypeError:
        raise TypeError("params[%r] must be an integer, not %s" %
                        (name, type(value).__name__)) from None


# The process a guard belongs to: 0 in the process that imported the
# binding, one more in each process forked from it (counted by an
# at-fork handler, so that a call pays for no getpid).
_process = 0
_process_lock = threading.Lock()


def _count_fork():
    """In a forked child: guards made before the fork are the parent's."""
    global _process, _process_lock
    _process += 1
    _process_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_count_fork)


class _Guard:
    """The lifetime guard of one Context in one process, a reader/writer
    lock: each call holds it shared (any number at once; re-entrant
    within a thread, so that a call made inside another one never waits
    for a close that waits for the outer one), close() exclusively: it
    marks the context closed, so that no call starts any more, waits
    until no call holds it, and destroys the context.

    A forked child does not use its parent's guard (see Context._guard_here):
    the calls it counts were the parent's threads', which the child does
    not have, and its lock may have been taken by one of them."""

    def __init__(self, closed=False):
        self.cond = threading.Condition(threading.Lock())
        self.users = 0  # threads holding it
        self.closed = closed
        self.local = threading.local()  # .depth: this thread's holds
        self.process = _process

    def depth(self):
        return getattr(self.local, "depth", 0)


class _Hold:
    """``with ctx._hold() as ptr``: one shared hold of ctx's guard."""

    __slots__ = ("ctx", "guard")

    def __init__(self, ctx):
        self.ctx = ctx
        self.guard = None

    def __enter__(self):
        ctx = self.ctx
        guard = self.guard = ctx._guard_here()
        depth = guard.depth()
        if depth == 0:
            with guard.cond:
                if guard.closed or ctx._ptr is None:
                    _errors.raise_status("INVALID_ARGUMENT",
                                         "the clgather Context is closed")
                guard.users += 1
        guard.local.depth = depth + 1
        return ctx._ptr

    def __exit__(self, *exc):
        guard = self.guard
        guard.local.depth -= 1
        if guard.local.depth == 0:
            with guard.cond:
                guard.users -= 1
                if guard.users == 0:
                    guard.cond.notify_all()


def _fact(function, convert):
    """A read-only property: convert(lib.<function>(ptr)), under a hold
    (the strings the library returns belong to the context)."""
    function = getattr(lib, function)

    def get(self):
        with self._hold() as ptr:
            return convert(function(ptr))
    return property(get)


class Context:
    """One OpenCL device with the programs built for it so far.

    ``Context(device=None, *, validate=None, params=None)``:

    - ``device``: a device spec as the library reads it: "cpu", "gpu",
      "accelerator", "P:D" (see ``clgather.devices()``), or a
      case-insensitive part of the device or platform name ("pocl");
      None reads CLGATHER_DEVICE, else takes the first GPU, else the
      first device.
    - ``validate``: True runs the CPU reference beside every host-memory
      call and raises DeviceMismatchError on any difference; None keeps
      the library's default (CLGATHER_VALIDATE).
    - ``params``: device parameters for this context's calls, in
      CLGATHER_PARAMS syntax ("wg=256,strip=512") or as a mapping
      ({"wg": 256}), applied onto the device's row in place of
      CLGATHER_PARAMS; None keeps the row with CLGATHER_PARAMS as read
      at creation. See the ``params`` property.
    - ``cache_dir``: the folder of the persistent program cache for this
      context, False to turn it off; None keeps the environment's
      (CLGATHER_CACHE_DIR, ...). Needs a library with the cache
      (``cache_info()``).

    The kernels a context builds are kept for its lifetime: reuse one
    context (the module-level functions keep one per device spec).
    Usable as a context manager; ``close()`` releases it (it waits for
    the calls other threads are making on it, and for what was enqueued
    through it). Any number of threads may call one context at once.
    """

    def __init__(self, device=None, *, validate=None, params=None,
                 cache_dir=None, _handle=None):
        self._ptr = None
        self._guard = _Guard()
        self._pid = os.getpid()  # the process that made it
        self._pyopencl = None  # (context, device, queue) of PyOpenCL
        if _handle is None:
            handle = _lib.c_ctx()
            if isinstance(device, Device):
                device = device.spec
            if isinstance(device, (bytes, bytearray)):
                raise TypeError("device: a str spec, a Device, a Context "
                                "or None, not %s" % type(device).__name__)
            spec = (None if device is None else
                    _host.c_string(str(device), "device"))
            _errors.check(lib.clg_context_create(ctypes.byref(handle), spec))
            _handle = handle.value
        self._ptr = _handle
        try:
            if params is not None:
                self.params = params
            if validate is not None:
                self.validate = validate
            if cache_dir is not None:
                self.set_cache_dir(cache_dir)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_cl(cls, context, device, queue, **kwargs):
        """A context over a caller's OpenCL objects, given as integer
        handles (cl_context, cl_device_id, cl_command_queue); they are
        retained by the context."""
        handle = _lib.c_ctx()
        _errors.check(lib.clg_context_create_from_cl(
            ctypes.byref(handle), context, device, queue))
        return cls(_handle=handle.value, **kwargs)

    @classmethod
    def from_pyopencl(cls, queue_or_context, **kwargs):
        """A context over PyOpenCL's own objects, by their handles
        (clg_context_create_from_cl; no device name is matched): a
        pyopencl.CommandQueue (its context, device and queue), or a
        pyopencl.Context of one device (a new in-order queue on it; one of
        several devices is InvalidArgumentError: pass a queue on the one
        to use). The keyword arguments are Context's (validate, params,
        cache_dir). The PyOpenCL objects are kept by the context and
        given back by pyopencl_context, pyopencl_device and
        pyopencl_queue."""
        objects = _pyopencl.objects_of(queue_or_context)
        ctx = cls.from_cl(*(o.int_ptr for o in objects), **kwargs)
        ctx._pyopencl = objects
        return ctx

    def _pyopencl_objects(self):
        with self._hold() as ptr:
            objects = self._pyopencl
            if objects is None:
                objects = self._pyopencl = _pyopencl.objects_of_handles(
                    lib.clg_context_cl_context(ptr),
                    lib.clg_context_cl_device(ptr),
                    lib.clg_context_cl_queue(ptr))
            return objects

    @property
    def pyopencl_context(self):
        """The context's cl_context as a pyopencl.Context: the one given
        to from_pyopencl (or its queue's), else one over the handle that
        holds its own reference. Needs PyOpenCL; InvalidArgumentError
        once the context is closed."""
        return self._pyopencl_objects()[0]

    @property
    def pyopencl_device(self):
        """The context's device as a pyopencl.Device (equal to the
        pyopencl.Device of the same cl_device_id): compare it with a
        queue's or array's device, or make PyOpenCL objects on it."""
        return self._pyopencl_objects()[1]

    @property
    def pyopencl_queue(self):
        """The context's command queue as a pyopencl.CommandQueue (the one
        given to from_pyopencl, or made for its context), on which calls
        on PyOpenCL arrays may be enqueued (queue=)."""
        return self._pyopencl_objects()[2]

    # -------------------------------------------------------- lifetime

    def _guard_here(self):
        """The context's guard in this process: in a forked child, a new
        one on its first use there (closed when the parent's was), that
        counts the child's own calls only."""
        guard = self._guard
        if guard.process == _process:
            return guard
        with _process_lock:
            guard = self._guard
            if guard.process != _process:
                guard = self._guard = _Guard(closed=guard.closed)
            return guard

    def _hold(self):
        """A shared hold on the context for one call (``with
        self._hold() as ptr``): close() waits until it ends;
        InvalidArgumentError when the context is closed or closing."""
        return _Hold(self)

    @property
    def handle(self):
        """The clg_context pointer, as an integer: valid until close(),
        which does not wait for calls made through it outside the
        binding."""
        with self._hold() as ptr:
            return ptr

    def close(self):
        """Waits for the calls other threads are making on the context
        and for what was enqueued through it, and releases it; calls that
        start afterwards raise InvalidArgumentError. Idempotent.

        In a process forked from the one that made the context it waits
        only for the calls of the child's own threads (those the parent's
        threads were making at the fork are not the child's) and frees
        nothing: the OpenCL objects, the PyOpenCL ones included, are the
        parent's (clg_context_destroy returns at once there)."""
        guard = self._guard_here()
        if guard.depth():
            raise RuntimeError("Context.close() inside a call on the same "
                               "context")
        with guard.cond:
            guard.closed = True
            while guard.users:
                guard.cond.wait()
            ptr, self._ptr = self._ptr, None
            if os.getpid() == self._pid:
                self._pyopencl = None
            if ptr is not None:
                lib.clg_context_destroy(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # No call holds the context (each holds a reference to it).
        ptr = getattr(self, "_ptr", None)
        if ptr is not None and lib is not None:
            self._ptr = None
            lib.clg_context_destroy(ptr)

    def __repr__(self):
        try:
            with self._hold() as ptr:
                return "<clgather.Context %r on %s %s (%s)>" % (
                    _lib.text(lib.clg_context_device_name(ptr)),
                    _lib.text(lib.clg_context_platform_name(ptr)),
                    _lib.text(lib.clg_context_driver_version(ptr)),
                    _lib.text(lib.clg_context_device_version(ptr)))
        except _errors.InvalidArgumentError:
            return "<clgather.Context closed>"

    # -------------------------------------------------------- facts

    device_name = _fact("clg_context_device_name", _lib.text)
    device_vendor = _fact("clg_context_device_vendor", _lib.text)
    device_version = _fact("clg_context_device_version", _lib.text)
    platform_name = _fact("clg_context_platform_name", _lib.text)
    platform_version = _fact("clg_context_platform_version", _lib.text)
    driver_version = _fact("clg_context_driver_version", _lib.text)
    device_type = _fact("clg_context_device_type",
                        lambda v: _DEVICE_TYPES.get(v, "other"))
    uses_host_memory = _fact("clg_context_uses_host_memory", bool)
    uses_svm = _fact("clg_context_uses_svm", bool)
    max_alloc_size = _fact("clg_context_max_alloc_size", int)
    cl_context = _fact("clg_context_cl_context", lambda v: v)
    cl_device = _fact("clg_context_cl_device", lambda v: v)
    cl_queue = _fact("clg_context_cl_queue", lambda v: v)

    @property
    def validate(self):
        """Validation mode: every host-memory call also runs the CPU
        reference and compares bit for bit (DeviceMismatchError)."""
        with self._hold() as ptr:
            return bool(lib.clg_context_validates(ptr))

    @validate.setter
    def validate(self, on):
        # True/False (or 1/0) only: bool("0") and bool("false") are True,
        # so a string that reads as "off" would have turned validation on.
        if isinstance(on, str) or on not in (True, False):
            _errors.raise_status(
                "INVALID_ARGUMENT",
                "validate=%r is not True or False" % (on,))
        with self._hold() as ptr:
            _errors.check(lib.clg_context_set_validate(ptr, int(bool(on))),
                          ptr)

    @property
    def last_path(self):
        """Where this thread's last successful host-memory call on the
        context ran: "host" (a tiny call, computed on the calling thread
        below the `host` device parameter), "device", or None before any
        (clg_context_last_path)."""
        with self._hold() as ptr:
            return {1: "device", 2: "host"}.get(
                int(lib.clg_context_last_path(ptr)))

    # -------------------------------------------------------- parameters

    @property
    def params(self):
        """The device parameters this context's calls use now, as a dict
        {field: value} (docs/design.md, "Device parameters"): the device's
        row of the library's table with CLGATHER_PARAMS (as read when the
        context was created) or the value last set here applied. The fields
        are those of the library loaded, in its order, each read by name
        (clg_context_get_param).

        Set it to a string in CLGATHER_PARAMS syntax ("wg=64,strip=512")
        or a mapping ({"wg": 64}): the fields given are applied onto the
        device's row, in place of CLGATHER_PARAMS, for the calls of this
        context that start afterwards; other contexts are not affected.
        "" (or {}) gives the row itself; None goes back to the row with
        CLGATHER_PARAMS as read at creation. A malformed value (None
        included, when that CLGATHER_PARAMS was) raises
        InvalidArgumentError naming the item and changes nothing. Reading
        it raises InvalidArgumentError while CLGATHER_PARAMS, as read at
        creation, is malformed and nothing valid was set since."""
        out = {}
        value = ctypes.c_int64()
        with self._hold() as ptr:
            for i, name in enumerate(_lib.PARAM_NAMES):
                _errors.check(lib.clg_context_get_param(
                    ptr, i, ctypes.byref(value)), ptr)
                out[name] = value.value
        return out

    @params.setter
    def params(self, value):
        if value is None:
            text = None  # the library applies CLGATHER_PARAMS
        elif isinstance(value, str):
            text = value
        elif isinstance(value, collections.abc.Mapping):
            text = ",".join(_params_item(name, v)
                            for name, v in value.items())
        else:
            raise TypeError("params: a str in CLGATHER_PARAMS syntax, a "
                            "mapping or None, not %s" % type(value).__name__)
        with self._hold() as ptr:
            _errors.check(lib.clg_context_set_params_text(
                ptr, None if text is None else _host.c_string(text, "params")),
                ptr)

    # -------------------------------------------------------- cache

    def _need_cache(self):
        if not _lib.HAS_CACHE:
            raise NotImplementedError(
                "the clgather library loaded (%s) has no persistent "
                "program cache" % _lib.LIBRARY_PATH)

    def set_cache_dir(self, directory):
        """Sets the persistent program cache's folder for this context
        (False or None: off)."""
        self._need_cache()
        if directory is None or directory is False:
            path = None
        else:
            path = _host.c_string(os.fsencode(directory), "cache_dir")
            if not path:  # as the library refuses "": say off with False
                _errors.raise_status(
                    "INVALID_ARGUMENT", "cache_dir=%r is empty: pass False "
                    "to turn the program cache off" % (directory,))
        with self._hold() as ptr:
            _errors.check(lib.clg_context_set_cache_dir(ptr, path), ptr)

    def cache_info(self):
        """The program cache's settings and this context's counts, as a
        dict: enabled, directory, max_bytes, hits, misses, stores,
        rejected, and refusal: why the cache last passed over its folder
        or an entry ("" when it did not), e.g. "not used: folder writable
        by group or others"."""
        self._need_cache()
        info = _lib.CacheInfo()
        with self._hold() as ptr:
            _errors.check(lib.clg_context_cache_info(ptr, ctypes.byref(info)),
                          ptr)
            refusal = _lib.text(lib.clg_context_cache_refusal(ptr))
        return {"enabled": bool(info.enabled),
                "directory": os.fsdecode(info.directory),
                "max_bytes": info.max_bytes, "hits": info.hits,
                "misses": info.misses, "stores": info.stores,
                "rejected": info.rejected, "refusal": refusal}

    # -------------------------------------------------------- operators

    def gather(self, data, indices, axis=0, *, out=None, oob="raise",
               queue=None, wait_for=None, events=None, sync=True):
        """ONNX Gather on this context's device; see clgather.gather."""
        return self._op("gather", data, indices, axis, out, oob, queue,
                        _pyopencl.wait_argument(wait_for, events), sync)

    def gather_elements(self, data, indices, axis=0, *, out=None,
                        oob="raise", queue=None, wait_for=None, events=None,
                        sync=True):
        """ONNX GatherElements on this context's device; see
        clgather.gather_elements."""
        return self._op("gather_elements", data, indices, axis, out, oob,
                        queue, _pyopencl.wait_argument(wait_for, events),
                        sync)

    def gather_nd(self, data, indices, batch_dims=0, *, out=None,
                  oob="raise", queue=None, wait_for=None, events=None,
                  sync=True):
        """ONNX GatherND on this context's device; see
        clgather.gather_nd."""
        return self._op("gather_nd", data, indices, batch_dims, out, oob,
                        queue, _pyopencl.wait_argument(wait_for, events),
                        sync)

    def finish(self, queue=None):
        """Waits for every operation enqueued through this context and
        raises the first deferred error among them (an out-of-range index
        found on the device). With a pyopencl.CommandQueue: only the
        operations enqueued on that queue (clg_context_finish_queue);
        those of other queues, and their errors, stay pending."""
        with self._hold() as ptr:
            if queue is None:
                _errors.check(lib.clg_context_finish(ptr), ptr)
            else:
                _errors.check(lib.clg_context_finish_queue(
                    ptr, queue.int_ptr), ptr)

    def _finish_event(self, event):
        """Waits for the one operation whose event handle is `event` and
        raises its deferred error (clg_context_finish_events)."""
        handle = ctypes.c_void_p(event)
        with self._hold() as ptr:
            _errors.check(lib.clg_context_finish_events(
                ptr, 1, ctypes.byref(handle)), ptr)

    def _op(self, op, data, indices, axis, out, oob, queue, waits, sync):
        options = _host.call_options(oob)
        _host.check_bool(sync, "sync")
        axis = _host.check_axis(axis, _host.attribute_name(op))
        if _pyopencl.is_array(data) or _pyopencl.is_array(indices):
            with self._hold():  # the whole call, its sync included
                return _pyopencl.enqueue(self, op, data, indices, axis, out,
                                         queue, waits, sync, options)
        if waits[0] is not None:
            raise TypeError("%s applies to PyOpenCL arrays only" % waits[1])
        if queue is not None:
            raise TypeError("queue applies to PyOpenCL arrays only")
        if not sync:
            raise TypeError("sync=False applies to PyOpenCL arrays only: a "
                            "call on NumPy arrays returns its result")
        call = _host.operation("run", op, options)
        shape_fn = _host.shape_function(op)
        with self._hold() as ptr:
            return _host.run(call, ptr, shape_fn, data, indices, axis, out)


# ------------------------------------------------------------ defaults

_defaults = {}
_defaults_lock = threading.Lock()


def _forget_defaults_after_fork():
    """In a forked child: the parent's contexts refuse every call there
    (the library names the process that made them), so the module-level
    functions drop them and make the child's own on first use; the lock
    may have been held by a parent thread the child does not have."""
    global _defaults_lock
    _defaults_lock = threading.Lock()
    _defaults.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_defaults_after_fork)


def default_context(device):
    """The context the module-level functions use for a device spec:
    created on first use, kept for the process."""
    if isinstance(device, Context):
        return device
    if isinstance(device, Device):
        device = device.spec  # one context per device, not per object
    with _defaults_lock:
        ctx = _defaults.get(device)
        if ctx is None:
            ctx = _defaults[device] = Context(device)
        return ctx


def context_for(data, indices, device, queue=None):
    """The Context the module-level functions use: `device` for host
    arrays (see default_context); for PyOpenCL arrays a given Context,
    else the one kept per cl_context and device of the call's queue=, or
    else of the data's queue."""
    if not (_pyopencl.is_array(data) or _pyopencl.is_array(indices)):
        return default_context(device)
    if isinstance(device, Context):
        return device
    if device is not None:
        _errors.raise_status(
            "INVALID_ARGUMENT",
            "device=%r: PyOpenCL arrays run on their own queue's device; "
            "pass a clgather.Context.from_pyopencl(queue) or None" % device)
    return _pyopencl.queue_context(_pyopencl.queue_of(data, queue),
                                   Context.from_pyopencl)


def gather(data, indices, axis=0, *, device=None, out=None, oob="raise",
           queue=None, wait_for=None, events=None, sync=True):
    """ONNX Gather, like ``numpy.take(data, indices, axis)``.

    - data: any ONNX dtype (see docs/python.md), rank >= 1: a NumPy
      array, anything numpy.asarray takes, an object with ``__dlpack__``
      in host memory (read in place), or a pyopencl.array.Array.
    - indices: integers, any rank (the same kinds of objects as data;
      PyOpenCL arrays with PyOpenCL data); negative values count from the
      end;
      a value outside [-s, s-1] (s = data.shape[axis]) is resolved as
      ``oob`` says.
    - axis: an integer in [-r, r-1]; a bool or a float is a TypeError, as
      in numpy.take.
    - device: a spec string (see Context), a Context, or None (the
      default device); ignored for PyOpenCL arrays, which run on their
      own queue (a Context from Context.from_pyopencl may be given).
    - out: an array of the output's shape and data's dtype to write (a
      NumPy array, an object with a writable ``__dlpack__`` in host
      memory, or a PyOpenCL array for PyOpenCL inputs); returned.
    - oob: what an out-of-range index does (clgather.OOB_MODES):
      "raise" (default) raises IndexOutOfRangeError (an IndexError) and
      leaves ``out`` as it was; "wrap" takes v mod s (numpy.take
      mode="wrap"); "clip" clamps v to [-s, s-1], then counts a negative
      value from the end (WebNN; numpy's mode="clip" for v >= 0); "fill"
      gives zero bytes (the empty string for bytes) wherever the index is
      out of range. Another value raises InvalidArgumentError (a
      ValueError). Under every mode an axis of size 0 with a non-empty
      output raises IndexOutOfRangeError.
    - queue, wait_for, sync: PyOpenCL arrays only, as in
      pyopencl.array.take: the pyopencl.CommandQueue to enqueue on (None:
      data's own), the pyopencl.Event list to wait for (``events`` is an
      alias; giving both is a TypeError), and whether to wait for the
      call and raise its index errors now (sync=False: they surface from
      Context.finish()).
    Returns the output: a NumPy array, or a PyOpenCL array whose
    ``events`` hold the call's event.
    """
    ctx = context_for(data, indices, device, queue)
    return ctx.gather(data, indices, axis, out=out, oob=oob, queue=queue,
                      wait_for=wait_for, events=events, sync=sync)


def gather_elements(data, indices, axis=0, *, device=None, out=None,
                    oob="raise", queue=None, wait_for=None, events=None,
                    sync=True):
    """ONNX GatherElements, like ``numpy.take_along_axis(data, indices,
    axis)`` (indices of data's rank, each non-axis dimension at most
    data's). Arguments as gather."""
    ctx = context_for(data, indices, device, queue)
    return ctx.gather_elements(data, indices, axis, out=out, oob=oob,
                               queue=queue, wait_for=wait_for,
                               events=events, sync=sync)


def gather_nd(data, indices, batch_dims=0, *, device=None, out=None,
              oob="raise", queue=None, wait_for=None, events=None,
              sync=True):
    """ONNX GatherND (opsets 11, 12, 13): with b = batch_dims and k =
    indices.shape[-1], each index is a tuple of k positions along data's
    dims b .. b+k-1, like ``data[i][tuple(indices[i][j])]`` per batch
    position i (advanced indexing). indices: int32 or int64, rank >= 1;
    the first b dims of data and indices equal; 1 <= k <= rank(data) - b;
    the output has shape indices.shape[:-1] + data.shape[b+k:]. oob
    applies per component ("fill": the whole slice is zero bytes).
    Other arguments as gather."""
    ctx = context_for(data, indices, device, queue)
    return ctx.gather_nd(data, indices, batch_dims, out=out, oob=oob,
                         queue=queue, wait_for=wait_for, events=events,
                         sync=sync)


class Device:
    """One OpenCL device as clgather sees it (clgather.devices())."""

    __slots__ = ("spec", "platform_index", "device_index", "type",
                 "is_default", "platform_name", "name", "vendor", "version",
                 "global_mem_size", "max_alloc_size", "host_unified_memory")

    def __init__(self, info):
        self.platform_index = info.platform_index
        self.device_index = info.device_index
        self.spec = "%d:%d" % (info.platform_index, info.device_index)
        self.type = _DEVICE_TYPES.get(info.type, "other")
        self.is_default = bool(info.is_default)
        for name in ("platform_name", "name", "vendor", "version"):
            setattr(self, name, _lib.text(getattr(info, name)))
        self.global_mem_size = info.global_mem_size
        self.max_alloc_size = info.max_alloc_size
        self.host_unified_memory = bool(info.host_unified_memory)

    def __repr__(self):
        return "<clgather.Device %s %s %r on %r%s>" % (
            self.spec, self.type, self.name, self.platform_name,
            " (default)" if self.is_default else "")


def devices():
    """Every OpenCL device, as a list of Device; [] when there is none."""
    count = ctypes.c_size_t()
    status = lib.clg_devices_list(None, 0, ctypes.byref(count))
    if status == _errors.DeviceNotFoundError.status:
        return []
    _errors.check(status)
    infos = (_lib.DeviceInfo * count.value)()
    _errors.check(lib.clg_devices_list(infos, count.value,
                                       ctypes.byref(count)))
    return [Device(info) for info in infos[:count.value]]


__all__ = ["Context", "Device", "devices", "gather", "gather_elements",
           "gather_nd"]
