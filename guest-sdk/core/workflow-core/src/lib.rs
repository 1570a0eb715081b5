//! The workflow core (`weft_workflow_core::replay::json`) behind the canonical ABI of the WIT
//! function `weft:swf/replay@0.1.0#call: func(request: list<u8>) -> list<u8>` (JSON in UTF-8),
//! with nothing imported: the request goes in as a pointer and a length in this module's
//! memory (allocated with `cabi_realloc`), and the answer comes back through a return area
//! holding its pointer and length, freed by `cabi_post_…`.

#![cfg_attr(target_family = "wasm", no_std)]

extern crate alloc;

#[cfg(target_family = "wasm")]
#[allow(
    unsafe_code,
    reason = "the canonical ABI is raw pointers into this module's memory"
)]
mod wasm {
    use alloc::alloc::{Layout, alloc, dealloc, realloc};
    use alloc::string::String;
    use core::cell::RefCell;

    use weft_workflow_core::replay::json::{Session, call};

    #[global_allocator]
    static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
        core::arch::wasm32::unreachable()
    }

    /// The module runs on one thread: the cell only satisfies `static`'s `Sync`.
    struct One<T>(RefCell<T>);

    // SAFETY: a Wasm module without threads has one thread.
    unsafe impl<T> Sync for One<T> {}

    /// The replay begun last, and the answer handed out and not yet freed.
    static SESSION: One<Option<Session>> = One(RefCell::new(None));
    static ANSWER: One<Option<String>> = One(RefCell::new(None));
    /// The return area: the answer's pointer and length.
    static RETURN: One<[u32; 2]> = One(RefCell::new([0; 2]));

    /// The canonical ABI's allocator: what a caller writes a request into.
    ///
    /// # Safety
    /// As `realloc`: `old` is null (with `old_len` 0) or a block of `old_len` bytes at `align`
    /// from here.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn cabi_realloc(
        old: *mut u8,
        old_len: usize,
        align: usize,
        new_len: usize,
    ) -> *mut u8 {
        let Ok(layout) = Layout::from_size_align(old_len.max(1), align) else {
            core::arch::wasm32::unreachable()
        };
        // SAFETY: as the caller promised, and sizes are never zero.
        unsafe {
            if old.is_null() {
                alloc(Layout::from_size_align_unchecked(new_len.max(1), align))
            } else {
                realloc(old, layout, new_len.max(1))
            }
        }
    }

    /// `call(request) -> answer`: the request's bytes are taken (and freed), the answer is
    /// kept until `cabi_post`.
    ///
    /// # Safety
    /// `request` holds `len` bytes allocated with `cabi_realloc` at alignment 1.
    #[unsafe(export_name = "weft:swf/replay@0.1.0#call")]
    unsafe extern "C" fn replay_call(request: *mut u8, len: usize) -> *const [u32; 2] {
        // SAFETY: as the caller promised.
        let bytes = unsafe { core::slice::from_raw_parts(request, len) };
        let answer = match core::str::from_utf8(bytes) {
            Ok(text) => call(&mut SESSION.0.borrow_mut(), text),
            Err(_) => String::from(r#"{"err":"the request is not UTF-8"}"#),
        };
        // SAFETY: allocated by `cabi_realloc` with these size and alignment.
        unsafe { dealloc(request, Layout::from_size_align_unchecked(len.max(1), 1)) };
        let mut area = RETURN.0.borrow_mut();
        *area = [answer.as_ptr() as u32, answer.len() as u32];
        *ANSWER.0.borrow_mut() = Some(answer);
        RETURN.0.as_ptr()
    }

    /// `memcmp`, which the target's libc would give, linked here so that the module imports
    /// nothing.
    ///
    /// # Safety
    /// `a` and `b` hold `n` bytes each.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: as the caller promised.
        let (a, b) = unsafe {
            (
                core::slice::from_raw_parts(a, n),
                core::slice::from_raw_parts(b, n),
            )
        };
        let differ = a.iter().zip(b).find(|(x, y)| x != y);
        differ.map_or(0, |(x, y)| i32::from(*x) - i32::from(*y))
    }

    /// Frees the answer of the last `call`.
    #[unsafe(export_name = "cabi_post_weft:swf/replay@0.1.0#call")]
    extern "C" fn replay_call_post(_: *const [u32; 2]) {
        ANSWER.0.borrow_mut().take();
    }
}
