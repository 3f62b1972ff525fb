//! The PTX ISA versions (`.version`) and targets (`.target`) the simulator reads: those
//! ptxas 13.5 knows (`ptxas --list-version`, and the `sm_XY` it takes in `.target`), so that
//! a module it refuses as "Unsupported .version" or "Unsupported .target" is refused here
//! too, and a version or target newer than these is named as one the simulator does not
//! know rather than read as if it were an old one.

/// The newest minor version of each major PTX ISA version ptxas 13.5 knows, majors 1 to 9:
/// 1.0–1.5, 2.0–2.3, 3.0–3.2, 4.0–4.3, 5.0–5.1, 6.0–6.5, 7.0–7.8, 8.0–8.8, 9.0–9.5.
const NEWEST_MINOR: [u32; 9] = [5, 3, 2, 3, 1, 5, 8, 8, 5];

/// The architectures ptxas 13.5 takes in `.target`, as the number `XY` of `sm_XY`.
const ARCHITECTURES: [u32; 33] = [
    10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 82, 86, 87, 88, 89, 90,
    100, 101, 103, 107, 110, 120, 121,
];

/// The options `.target` may name after the architecture (`.target sm_90, debug`).
const TARGET_OPTIONS: [&str; 4] = ["texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"];

/// Why the simulator refuses PTX ISA version `major.minor` (`None` when ptxas 13.5 knows
/// it): one newer than 9.5, or a minor version its major never had (8.9).
pub(crate) fn unknown_version(major: u32, minor: u32) -> Option<String> {
    let newest = NEWEST_MINOR.get((major as usize).wrapping_sub(1)).copied();
    if newest.is_some_and(|n| minor <= n) {
        return None;
    }
    let (last_major, last_minor) = (NEWEST_MINOR.len(), NEWEST_MINOR[NEWEST_MINOR.len() - 1]);
    Some(format!(
        "PTX ISA version {major}.{minor}, which ptxas 13.5 does not know (the simulator reads those it \
         does, 1.0 to {last_major}.{last_minor})"
    ))
}

/// Why the simulator refuses the `.target` item `item` (one of the directive's
/// comma-separated words; `None` when ptxas 13.5 knows it): anything but an architecture
/// `sm_XY` or `compute_XY` of [`ARCHITECTURES`], with an `a` (XY at least 90) or `f` (at
/// least 100) after it or not, or one of [`TARGET_OPTIONS`].
pub(crate) fn unknown_target(item: &str) -> Option<String> {
    let arch = item.strip_prefix("sm_").or_else(|| item.strip_prefix("compute_"));
    let known = match arch {
        None => TARGET_OPTIONS.contains(&item),
        Some(arch) => {
            let (number, suffix) =
                arch.split_at(arch.find(|c: char| !c.is_ascii_digit()).unwrap_or(arch.len()));
            let number = number.parse::<u32>().ok().filter(|n| ARCHITECTURES.contains(n));
            number.is_some_and(|n| match suffix {
                "" => true,
                "a" => n >= 90,
                "f" => n >= 100,
                _ => false,
            })
        }
    };
    (!known).then(|| {
        format!(
            "target `{item}`, which ptxas 13.5 does not know (the simulator reads the targets it does, \
             sm_10 to sm_121)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row checked with ptxas 13.5 ("Unsupported .version", "Unsupported .target").
    #[test]
    fn versions_and_targets_are_those_ptxas_knows() {
        for (major, minor) in [(1, 0), (7, 8), (8, 0), (8, 8), (9, 0), (9, 5), (5, 1)] {
            assert_eq!(unknown_version(major, minor), None, "{major}.{minor}");
        }
        for (major, minor) in [(0, 9), (8, 9), (9, 6), (10, 0), (99, 9), (5, 2)] {
            assert!(unknown_version(major, minor).is_some(), "{major}.{minor}");
        }
        for t in ["sm_80", "sm_90", "sm_90a", "sm_100f", "sm_121a", "compute_90", "debug", "sm_10"] {
            assert_eq!(unknown_target(t), None, "{t}");
        }
        for t in
            ["sm_1000", "sm_91", "sm_122", "sm_89a", "sm_90f", "compute_91", "sm_9", "foo", "sm_", "sm_90b"]
        {
            assert!(unknown_target(t).is_some(), "{t}");
        }
    }
}
