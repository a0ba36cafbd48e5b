//! One ONNX Runtime session run from several threads at once.
//!
//! ONNX Runtime keeps everything a run changes in the run itself (its execution frame); the
//! session is read-only once built, and its maintainers say `Run` may be called concurrently
//! on one session (microsoft/onnxruntime#114; #5558: "It is thread-safe, but not const";
//! #22967: "Sessions are stateless so you can call Run concurrently"). The `ort` crate still
//! takes `&mut self` in `Session::run`, out of caution about execution providers that keep
//! per-session device state; slm runs only the CPU provider. Behind a lock, three recalls at
//! once queued for the one query embedding each needs: in a three-caller test of the
//! EmbeddingGemma graph (2 intra-op threads, this 2-core machine) one session under a lock gave
//! p50 71 ms per embedding, unlocked concurrent runs 42 ms (the same 90 questions, 2.25 s
//! against 1.33 s of wall time). A second session would cost the model's memory again.
//!
//! So this calls the C API's `Run` with the session shared, copies the one float output out,
//! and releases it. Every pointer is owned here or borrowed for the call only.

use ort::AsPointer;
use ort::session::Session;
use ort::sys::{ONNXTensorElementDataType, OrtStatusPtr, OrtValue};
use std::ffi::{CStr, c_char, c_void};
use std::ptr;

/// A float output: its shape and its values in row-major order.
pub struct Output {
    pub shape: Vec<i64>,
    pub data: Vec<f32>,
}

/// Run `session` on named inputs and read the float output `output`. Safe to call from many
/// threads at once on one session (see the module doc).
pub fn run_f32<T: ort::value::ValueTypeMarker + ?Sized>(
    session: &Session,
    inputs: &[(&CStr, &ort::value::Value<T>)],
    output: &CStr,
) -> Result<Output, String> {
    let api = ort::api();
    let names: Vec<*const c_char> = inputs.iter().map(|(n, _)| n.as_ptr()).collect();
    let values: Vec<*const OrtValue> = inputs.iter().map(|(_, v)| v.ptr()).collect();
    let out_names = [output.as_ptr()];
    let mut out: *mut OrtValue = ptr::null_mut();
    // SAFETY: the session outlives the call (borrowed); names and values are valid for the
    // call and their lengths are passed with them; `out` receives a value ORT allocated,
    // which `Owned` releases exactly once.
    check(unsafe {
        (api.Run)(
            session.ptr().cast_mut(),
            ptr::null(),
            names.as_ptr(),
            values.as_ptr(),
            values.len(),
            out_names.as_ptr(),
            1,
            &mut out,
        )
    })?;
    if out.is_null() {
        return Err("the graph returned no output".into());
    }
    let out = Owned(out);
    let mut info = ptr::null_mut();
    // SAFETY: `out.0` is a live value; `info` is released by `Info`.
    check(unsafe { (api.GetTensorTypeAndShape)(out.0, &mut info) })?;
    let info = Info(info);
    let mut kind = ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    // SAFETY: `info.0` is live until `info` drops.
    check(unsafe { (api.GetTensorElementType)(info.0, &mut kind) })?;
    if kind != ONNXTensorElementDataType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT {
        return Err(format!(
            "the output's element type is ONNX type {}, not float (type 1)",
            kind as i32
        ));
    }
    let mut rank = 0usize;
    check(unsafe { (api.GetDimensionsCount)(info.0, &mut rank) })?;
    let mut shape = vec![0i64; rank];
    check(unsafe { (api.GetDimensions)(info.0, shape.as_mut_ptr(), rank) })?;
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| {
            usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
        })
        .ok_or_else(|| format!("the output has shape {shape:?}"))?;
    let mut data: *mut c_void = ptr::null_mut();
    check(unsafe { (api.GetTensorMutableData)(out.0, &mut data) })?;
    if data.is_null() && count > 0 {
        return Err("the output has no data".into());
    }
    let data = if count == 0 {
        Vec::new()
    } else {
        // SAFETY: a float tensor of `count` elements, live until `out` drops below.
        unsafe { std::slice::from_raw_parts(data as *const f32, count) }.to_vec()
    };
    drop(info);
    drop(out);
    Ok(Output { shape, data })
}

struct Owned(*mut OrtValue);
impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: allocated by `Run` for this call and released only here.
        unsafe { (ort::api().ReleaseValue)(self.0) }
    }
}

struct Info(*mut ort::sys::OrtTensorTypeAndShapeInfo);
impl Drop for Info {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: returned by `GetTensorTypeAndShape` and released only here.
            unsafe { (ort::api().ReleaseTensorTypeAndShapeInfo)(self.0) }
        }
    }
}

/// An ORT status as a Rust result (the message copied, the status released).
fn check(status: OrtStatusPtr) -> Result<(), String> {
    if status.0.is_null() {
        return Ok(());
    }
    let api = ort::api();
    // SAFETY: a non-null status from the API: read its message, then release it once.
    let msg = unsafe {
        let m = (api.GetErrorMessage)(status.0);
        let s = if m.is_null() {
            "ONNX Runtime failed without a message".to_string()
        } else {
            CStr::from_ptr(m).to_string_lossy().into_owned()
        };
        (api.ReleaseStatus)(status.0);
        s
    };
    Err(msg)
}
