# SPDX-License-Identifier: Apache-2.0
"""The device-buffer path: pyopencl.array.Array in, pyopencl.array.Array out.

The operator is enqueued (clg_enqueue on a clg_call with the call's
out-of-range mode; clg_enqueue_gather_ex and friends on older libraries)
on the call's queue= or else the data array's own queue, after the
arrays' pending events (for an array at an offset, its copy's) and the
caller's (wait_for=, or its alias events=), as pyopencl.array.take
does; its event is added to the output array's events: the data never
leaves the device. PyOpenCL is imported only when an argument is one of
its arrays or a Context's PyOpenCL objects are asked for. The Context
layer (_context) calls in here; nothing here imports it.
"""

import ctypes
import os
import sys
import threading

from . import _dtypes, _errors, _host, _lib


def is_array(obj):
    """True for a pyopencl.array.Array (without importing PyOpenCL)."""
    module = sys.modules.get("pyopencl.array")
    return module is not None and isinstance(obj, module.Array)


# (cl_context, cl_device_id) handles -> Context over them
_contexts = {}
_contexts_lock = threading.Lock()


def _forget_contexts_after_fork():
    """In a forked child: see _context._forget_defaults_after_fork."""
    global _contexts_lock
    _contexts_lock = threading.Lock()
    _contexts.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_contexts_after_fork)


def queue_context(queue, make):
    """The Context kept for a pyopencl.CommandQueue's context and device
    (by the module-level functions): make(queue) on first use."""
    key = (queue.context.int_ptr, queue.device.int_ptr)
    with _contexts_lock:
        ctx = _contexts.get(key)
        if ctx is None:
            ctx = _contexts[key] = make(queue)
        return ctx


def finish(queue):
    """Context.finish(queue) of the context the module-level functions
    keep for a pyopencl.CommandQueue's context and device: waits for the
    calls made with sync=False on that queue and raises their first
    deferred error; calls on other queues stay pending."""
    key = (queue.context.int_ptr, queue.device.int_ptr)
    with _contexts_lock:
        ctx = _contexts.get(key)
    if ctx is not None:
        ctx.finish(queue)


def queue_of(data, queue=None):
    """The queue a call enqueues on: `queue` (queue=, a
    pyopencl.CommandQueue) when given, else data's own."""
    if not is_array(data):
        raise TypeError("data must be a pyopencl.array.Array when indices "
                        "is one (both live on the device, or neither)")
    if queue is not None:
        module = sys.modules.get("pyopencl")
        if module is None or not isinstance(queue, module.CommandQueue):
            raise TypeError("queue must be a pyopencl.CommandQueue, not %s"
                            % type(queue).__name__)
        return queue
    if data.queue is None:
        _errors.raise_status(
            "INVALID_ARGUMENT", "data has no queue: give the PyOpenCL array "
            "one (array.with_queue(queue)) or pass queue=")
    return data.queue


def wait_argument(wait_for, events):
    """wait_for= and its alias events= as (value, keyword): the one given,
    (None, "wait_for") when neither is; both given is a TypeError."""
    if events is None:
        return wait_for, "wait_for"
    if wait_for is not None:
        raise TypeError("give wait_for= or events= (its alias), not both")
    return events, "events"


def _event_list(waits, cl):
    """wait_for= (or events=), as wait_argument gives it: None or an
    iterable of pyopencl.Event (user events included), as a list;
    anything else is a TypeError naming the keyword used."""
    events, word = waits
    if events is None:
        return []
    try:
        events = list(events)
    except TypeError:
        raise TypeError("%s must be a list of pyopencl.Event, not %s"
                        % (word, type(events).__name__)) from None
    for i, event in enumerate(events):
        if not isinstance(event, cl.Event):
            raise TypeError("%s[%d] must be a pyopencl.Event, not %s" %
                            (word, i, type(event).__name__))
    return events


def objects_of(queue_or_context):
    """(pyopencl.Context, pyopencl.Device, pyopencl.CommandQueue) of a
    pyopencl.CommandQueue (its own), or of a pyopencl.Context of one
    device (a new in-order queue on it). A context of several devices is
    InvalidArgumentError: which device to use is the caller's choice, made
    by passing a queue on it."""
    module = sys.modules.get("pyopencl")
    if module is not None and isinstance(queue_or_context,
                                         module.CommandQueue):
        return (queue_or_context.context, queue_or_context.device,
                queue_or_context)
    if module is not None and isinstance(queue_or_context, module.Context):
        devices = queue_or_context.devices
        if len(devices) != 1:
            _errors.raise_status(
                "INVALID_ARGUMENT", "the pyopencl.Context has %d devices "
                "(%s): pass a pyopencl.CommandQueue on the one to use" %
                (len(devices), ", ".join(d.name for d in devices)))
        return (queue_or_context, devices[0],
                module.CommandQueue(queue_or_context, devices[0]))
    raise TypeError("from_pyopencl takes a pyopencl.CommandQueue or a "
                    "pyopencl.Context, not %s" %
                    type(queue_or_context).__name__)


def objects_of_handles(context, device, queue):
    """PyOpenCL objects over a clgather context's handles, each holding
    its own reference (clRetain*): they stay valid after the clgather
    context is closed."""
    try:
        import pyopencl as cl
    except ImportError as error:
        raise ImportError("the PyOpenCL objects of a clgather.Context need "
                          "PyOpenCL (pip install pyopencl)") from error
    return (cl.Context.from_int_ptr(context, retain=True),
            cl.Device.from_int_ptr(device),
            cl.CommandQueue.from_int_ptr(queue, retain=True))


def _buffer_array(array, what, queue, given, waits, cl, cl_array):
    """The array as clgather takes it: C-contiguous, at its byte offset in
    its buffer (clg_call's offsets). Where the library loaded has no
    offsets, an array at an offset is copied once, on the device, on the
    call's queue= when `given`, else on its own queue (else `queue`),
    after its events and `waits` (the call's wait_for=); the copy's event
    is among the copy's events, which the operation waits for. An empty
    array needs no copy (no buffer is passed for it).

    The copy is a plain pyopencl.Buffer, never one of array.allocator's:
    it is released when the call returns, before the operation has run,
    and OpenCL deletes a released buffer only once the commands that use
    it have completed (on any queue, in order or not), whereas a
    pyopencl.tools.MemoryPool would hand it to its next allocation at
    once, whose writes the operation could then read."""
    if not array.flags.c_contiguous:
        _errors.raise_status(
            "INVALID_ARGUMENT", "%s: a PyOpenCL array must be C-contiguous"
            % what)
    if array.offset and array.size and _lib.CallAt is None:
        queue = queue if given else (array.queue or queue)
        buffer = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE,
                           array.nbytes)
        copy = cl_array.Array(queue, array.shape, array.dtype, data=buffer)
        copy.add_event(cl.enqueue_copy(
            queue, buffer, array.base_data, src_offset=array.offset,
            byte_count=array.nbytes, wait_for=list(array.events) + waits))
        array = copy
    return array


class _ClTensor:
    def __init__(self, array, code):
        self.array = array
        self.shape = _host.shape_array(array.shape)
        buffer = array.base_data.int_ptr if array.size else None
        self.offset = array.offset if array.size else 0
        self.tensor = _lib.ClTensor(code, array.ndim, self.shape, buffer)


def enqueue(ctx, op, data, indices, axis, out, queue, waits, sync,
            options):
    """One operator call on PyOpenCL arrays, enqueued on `queue` (queue=)
    or data's own, after `waits` (wait_argument's pair)."""
    import pyopencl as cl
    import pyopencl.array as cl_array
    given_queue = queue is not None
    queue = queue_of(data, queue)
    if not is_array(indices):
        raise TypeError("indices must be a pyopencl.array.Array when data "
                        "is one (both live on the device, or neither)")
    code = _dtypes.clg_dtype(data.dtype)
    if code == _dtypes.STRING:
        _errors.raise_status("UNSUPPORTED_DTYPE",
                             "STRING data ('S' arrays) is host memory only")
    if indices.dtype not in (_dtypes.np.int32, _dtypes.np.int64):
        _errors.raise_status(
            "UNSUPPORTED_DTYPE", "indices on the device must be int32 or "
            "int64, not %s" % indices.dtype)
    given = _event_list(waits, cl)
    data_t = _ClTensor(_buffer_array(data, "data", queue, given_queue,
                                     given, cl, cl_array), code)
    index_t = _ClTensor(_buffer_array(indices, "indices", queue,
                                      given_queue, given, cl, cl_array),
                        _dtypes.index_code(indices))
    axis = _host.check_axis(axis)
    shape = _host.output_shape(
        _host.shape_function(op),
        _host.Descriptor(data.shape, code),
        _host.Descriptor(indices.shape, index_t.tensor.dtype), axis)
    if out is None:
        out = cl_array.empty(queue, shape, data.dtype,
                             allocator=data.allocator)
    elif not is_array(out):
        raise TypeError("out must be a pyopencl.array.Array for PyOpenCL "
                        "inputs")
    elif not out.flags.c_contiguous or (out.offset and
                                        _lib.CallAt is None):
        _errors.raise_status(
            "INVALID_ARGUMENT", "out: a PyOpenCL array that is C-contiguous "
            "from offset 0 of its buffer")
    out_t = _ClTensor(out, _dtypes.clg_dtype(out.dtype))
    # The arrays the operation reads: a copy's event orders it after the
    # copy (on another queue, or an out-of-order one), which waited for
    # the original's events.
    # The caller's events first, so that a failed one's position in a
    # message (event_wait_list[k]) is its position in wait_for=.
    waits = (given + list(data_t.array.events) +
             list(index_t.array.events) + list(out.events))
    wait_list = (_lib.c_handle * max(len(waits), 1))(
        *[e.int_ptr for e in waits])
    event = _lib.c_handle()
    ptr = ctx.handle
    offsets = (data_t.offset, index_t.offset, out_t.offset)
    if _lib.CallAt is not None:
        # Each array at its offset in its own buffer: no copy.
        call, pointer = _host.call_at(op, axis, options, offsets)
        status = _lib.lib.clg_enqueue(
            ptr, queue.int_ptr, pointer,
            ctypes.byref(data_t.tensor), ctypes.byref(index_t.tensor),
            ctypes.byref(out_t.tensor), len(waits),
            wait_list if waits else None, ctypes.byref(event))
    else:
        call = _host.operation("enqueue", op, options)
        status = call(ptr, queue.int_ptr, ctypes.byref(data_t.tensor),
                      ctypes.byref(index_t.tensor), axis,
                      ctypes.byref(out_t.tensor), len(waits),
                      wait_list if waits else None, ctypes.byref(event))
    _errors.check(status, ptr)
    # The library's reference to the event passes to PyOpenCL.
    out.add_event(cl.Event.from_int_ptr(event.value, retain=False))
    if sync:
        # This call's own errors only: another thread's pending calls keep
        # theirs (clg_context_finish_events).
        ctx._finish_event(event.value)
    return out
