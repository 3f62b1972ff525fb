//! The per-device module cache: each (kernel name, [`Kernel::cache_key`], target) is built,
//! verified, printed and loaded (parsed by the simulator, JIT-compiled by the driver) once.
//!
//! Rebuilding and reloading a module on every launch costs milliseconds per call; with the
//! cache a repeated launch costs one hash-map lookup.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ptx_core::ir::Param;
use ptx_core::{Kernel, Target};

use crate::error::Result;

/// How often the module cache built a kernel, and how often it served one without building.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Kernels built (IR built, verified, printed and loaded), counting failed attempts.
    pub builds: u64,
    /// Lookups served from the cache.
    pub hits: u64,
    /// Modules held now.
    pub modules: usize,
}

/// A loaded module, in the form its backend runs.
pub(crate) enum Loaded {
    /// Parsed PTX for the simulator.
    Sim(ptx_sim::Module),
    /// A JIT-loaded CUDA module and function.
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::CudaKernel),
}

/// One cached kernel: what launches need to know about it, and its loaded module.
pub(crate) struct CachedKernel {
    /// The entry's name in the PTX.
    pub(crate) entry: String,
    /// Its parameters, for checking launch arguments.
    pub(crate) params: Vec<Param>,
    /// Bytes of static `.shared` memory it declares.
    pub(crate) static_shared: u32,
    /// The PTX text it was loaded from.
    pub(crate) ptx: String,
    /// The loaded module.
    pub(crate) loaded: Loaded,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: String,
    comptime: String,
    target: Target,
}

/// The cache proper.
///
/// The map lock is held only to find (or insert) a key's slot; the build and the load (a PTX
/// JIT can take a while) run under that one slot's lock, so lookups of other kernels never
/// wait for them, and two threads still never build the same kernel twice. No lock is held
/// while a kernel runs.
#[derive(Default)]
pub(crate) struct ModuleCache {
    map: Mutex<HashMap<Key, Arc<Slot>>>,
    builds: AtomicU64,
    hits: AtomicU64,
    modules: AtomicUsize,
}

/// One key's entry: empty until a build succeeds.
#[derive(Default)]
struct Slot {
    kernel: Mutex<Option<Arc<CachedKernel>>>,
}

impl ModuleCache {
    /// The cached kernel for `kernel` on `target`, building it and loading it with `load`
    /// (given the entry name and the PTX) on a miss. Returns whether it was a hit.
    ///
    /// Failures are not cached: the next launch tries again.
    pub(crate) fn get_or_load<K: Kernel + ?Sized>(
        &self,
        kernel: &K,
        target: Target,
        load: impl FnOnce(&str, &str) -> Result<Loaded>,
    ) -> Result<(Arc<CachedKernel>, bool)> {
        let key = Key { name: kernel.name().to_string(), comptime: kernel.cache_key(), target };
        let slot = {
            let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key).or_default().clone()
        };
        // Held across the build so two threads never build the same kernel twice.
        let mut cached = slot.kernel.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cached.as_ref() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok((hit.clone(), true));
        }
        self.builds.fetch_add(1, Ordering::Relaxed);
        let ir = kernel.build();
        ptx_core::verify::verify(&ir)?;
        let ptx = ptx_core::print::kernel_ptx(&ir, target);
        let loaded = load(&ir.name, &ptx)?;
        let static_shared = ir.shared.iter().fold(0u64, |acc, s| {
            let align = u64::from(s.align.max(1));
            acc.div_ceil(align) * align + u64::from(s.bytes)
        });
        let entry = Arc::new(CachedKernel {
            entry: ir.name,
            params: ir.params,
            static_shared: u32::try_from(static_shared).unwrap_or(u32::MAX),
            ptx,
            loaded,
        });
        *cached = Some(entry.clone());
        self.modules.fetch_add(1, Ordering::Relaxed);
        Ok((entry, false))
    }

    /// The counters.
    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            builds: self.builds.load(Ordering::Relaxed),
            hits: self.hits.load(Ordering::Relaxed),
            modules: self.modules.load(Ordering::Relaxed),
        }
    }
}
