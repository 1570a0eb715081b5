//! The misbehaviours the hostile test guests share, each chosen by name. Included by each guest
//! crate with `#[path]`, so that every guest has the same ones and no extra crate is needed.

use std::hint::black_box;

/// The size of the result `big` answers: far above every output limit the host sets.
pub(crate) const BIG_OUTPUT: usize = 10 * 1024 * 1024;

/// Runs the misbehaviour `name` if it is one: `loop` (spins forever without yielding), `alloc`
/// (allocates and touches memory without bound), `stack` (recurses with 1 KiB frames until the
/// stack in linear memory overflows), `call-depth` (recurses with frames that live only in Wasm
/// locals until the engine's call stack overflows), `trap` (aborts: a Wasm `unreachable`) or
/// `panic`. Answers `None` for any other name; those never return otherwise.
///
/// The two stack overflows differ: Rust keeps its stack frames (whatever has its address taken)
/// in linear memory, below the data (`--stack-first`, 64 KiB here), so `stack` runs that stack
/// pointer below address 0 and traps with an out-of-bounds memory access; `call-depth` keeps
/// nothing there and exhausts the engine's own stack for Wasm frames instead.
pub(crate) fn misbehave(name: &str) -> Option<std::convert::Infallible> {
    match name {
        "loop" => spin(),
        "alloc" => allocate_forever(),
        "stack" => {
            let depth = recurse(0);
            panic!("recursion ended at depth {depth}")
        }
        "call-depth" => {
            let depth = descend(0, black_box(u64::MAX));
            panic!("recursion ended with {depth}")
        }
        "trap" => std::process::abort(),
        "panic" => panic!("asked to panic"),
        _ => None,
    }
}

/// A result far too big for the host to accept.
pub(crate) fn big_output() -> String {
    "x".repeat(BIG_OUTPUT)
}

fn spin() -> ! {
    let mut turns: u64 = 0;
    loop {
        turns = black_box(turns.wrapping_add(1));
    }
}

fn allocate_forever() -> ! {
    let mut kept = Vec::new();
    loop {
        let mut block = vec![0u8; 1 << 20];
        // Touch every page, so that the memory is really used and the allocation stays.
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        kept.push(black_box(block));
    }
}

/// Recurses with a 1 KiB frame until the stack overflows. The base case depends on a value the
/// optimiser cannot see, and the result is used after the call, so it stays a real recursion.
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth; 128]);
    if depth == black_box(u64::MAX) {
        return frame[0];
    }
    recurse(depth + 1).wrapping_add(frame[(depth % 128) as usize])
}

/// Recurses without touching linear memory, until the engine's stack for Wasm calls overflows.
/// The result is mixed after the call with an operation that is not a plain accumulation, so
/// LLVM cannot turn the recursion into a loop.
#[inline(never)]
fn descend(depth: u64, limit: u64) -> u64 {
    if depth == limit {
        return depth;
    }
    descend(depth + 1, limit).rotate_left(1) ^ depth
}
