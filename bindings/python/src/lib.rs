//! The Python package `antipode`: a puzzle's ranking (`antipode.puzzle`), depth tables
//! (`antipode.Table`) with numpy arrays, and analyses (`antipode.analyze`), over the
//! library. Errors are `antipode.Error` and its subclasses, carrying the library's
//! one-line message; long calls release the GIL.

use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use ::antipode::Notation;
use ::antipode::descent::DescentError;
use ::antipode::puzzles::{self, AnyPuzzle};
use ::antipode::store::{Depths, Encoding};
use ::antipode::table::{Table as DepthTable, TableError};
use ::antipode::{Puzzle as _, with_puzzle};

create_exception!(
    antipode,
    Error,
    PyException,
    "An error of the antipode library."
);
create_exception!(
    antipode,
    BadPosition,
    Error,
    "A position that is malformed or unsolvable."
);
create_exception!(
    antipode,
    TableMismatch,
    Error,
    "A table of another puzzle, or no puzzle by that name."
);
create_exception!(
    antipode,
    CorruptFile,
    Error,
    "A table file that cannot be read: truncated, incomplete, a bad checksum."
);

/// `antipode.FileNotFound`: a missing table, both an `antipode.Error` and a
/// `FileNotFoundError` (so `except OSError` works), made when the module loads.
static FILE_NOT_FOUND: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> =
    pyo3::sync::PyOnceLock::new();

fn file_not_found_type(py: Python<'_>) -> PyResult<&Py<pyo3::types::PyType>> {
    FILE_NOT_FOUND.get_or_try_init(py, || {
        let bases = (
            py.get_type::<Error>(),
            py.get_type::<pyo3::exceptions::PyFileNotFoundError>(),
        );
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "antipode")?;
        namespace.set_item(
            "__doc__",
            "A table file that does not exist: an antipode.Error and a FileNotFoundError.",
        )?;
        let made =
            py.get_type::<pyo3::types::PyType>()
                .call1(("FileNotFound", bases, namespace))?;
        Ok(made.cast_into::<pyo3::types::PyType>()?.unbind())
    })
}

/// The error for a file that cannot be opened: `FileNotFound` when it is missing
/// (errno 2 and the path, as `FileNotFoundError` has them), `CorruptFile` otherwise.
fn open_error(py: Python<'_>, path: &std::path::Path, e: impl ToString) -> PyErr {
    if !path.exists()
        && let Ok(kind) = file_not_found_type(py)
    {
        let message = e.to_string();
        return match kind.bind(py).call1((2, message, path.to_path_buf())) {
            Ok(instance) => PyErr::from_value(instance),
            Err(failed) => failed,
        };
    }
    CorruptFile::new_err(e.to_string())
}

/// Runs `f` where rayon has threads: on the global pool, except in a child made by
/// `os.fork()` after the parent used it (the child inherits the pool's state but none
/// of its threads, so a parallel call there would wait for ever), where a pool of the
/// child's own is made once.
fn on_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    use std::sync::{Arc, Mutex};
    static CHILD_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    if *LOADED_IN.get_or_init(|| pid) == pid {
        return f();
    }
    let pool = {
        let mut child = CHILD_POOL.lock().unwrap_or_else(|p| p.into_inner());
        match &*child {
            Some((owner, pool)) if *owner == pid => pool.clone(),
            _ => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .build()
                    .map(Arc::new)
                    .expect("threads for a forked process's pool");
                *child = Some((pid, pool.clone()));
                pool
            }
        }
    };
    pool.install(f)
}

/// Runs `work` over `items` a chunk at a time, each on all cores without the GIL,
/// taking the GIL between chunks to let Python's signal handlers run: Ctrl-C ends a
/// long call (a million descents on a 2-bit table) within a chunk's time.
fn in_interruptible_chunks<T: Sync, R: Send>(
    py: Python<'_>,
    items: &[T],
    work: impl Fn(&[T]) -> PyResult<Vec<R>> + Sync,
) -> PyResult<Vec<R>> {
    const CHUNK: usize = 1 << 16;
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(CHUNK) {
        out.extend(py.detach(|| on_threads(|| work(chunk)))?);
        py.check_signals()?;
    }
    Ok(out)
}

/// The process the module was loaded in (whose global rayon pool has its threads).
static LOADED_IN: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

/// `text` as a Python string literal in single quotes, for a `repr`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn bad_position(e: impl ToString) -> PyErr {
    BadPosition::new_err(e.to_string())
}

/// The exception for a table that cannot answer: `CorruptFile` where the bytes read
/// fail their checksum, `Error` otherwise (unreached, inconsistent).
fn answer_error(e: TableError) -> PyErr {
    match e {
        TableError::BlockChecksum { .. } => CorruptFile::new_err(e.to_string()),
        _ => Error::new_err(e.to_string()),
    }
}

fn mismatch(e: impl ToString) -> PyErr {
    TableMismatch::new_err(e.to_string())
}

/// A puzzle: its ranking, positions and moves.
#[pyclass(frozen, module = "antipode")]
struct Puzzle {
    inner: AnyPuzzle,
}

#[pymethods]
impl Puzzle {
    /// The puzzle's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name()
    }

    /// The number of indices: every state has one in `0..index_count`.
    #[getter]
    fn index_count(&self) -> u64 {
        self.inner.index_count()
    }

    /// The index of a position (text, as the command line takes it).
    fn rank(&self, position: &str) -> PyResult<u64> {
        with_puzzle!(&self.inner, p => Ok(p.rank(&p.parse(position).map_err(bad_position)?)))
    }

    /// The position with index `index`, in its one-line form.
    fn unrank(&self, index: u64) -> PyResult<String> {
        self.check_index(index)?;
        Ok(with_puzzle!(&self.inner, p => p.format_line(&p.unrank(index))))
    }

    /// A position's one-line form, checked (raises BadPosition).
    fn parse(&self, text: &str) -> PyResult<String> {
        with_puzzle!(&self.inner, p => Ok(p.format_line(&p.parse(text).map_err(bad_position)?)))
    }

    /// The same as `parse`: the canonical one-line form of a position.
    fn format(&self, text: &str) -> PyResult<String> {
        self.parse(text)
    }

    /// The positions one move away, as (move, position) pairs.
    fn neighbours(&self, position: &str) -> PyResult<Vec<(String, String)>> {
        with_puzzle!(&self.inner, p => {
            let state = p.parse(position).map_err(bad_position)?;
            let mut out = Vec::new();
            p.successors(&state, &mut out);
            Ok(out
                .iter()
                .map(|s| (s.moved.to_string(), p.format_line(&s.state)))
                .collect())
        })
    }

    /// The indices of many positions, as a numpy array of uint64 (on all cores).
    fn rank_many<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<String>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let ranks = py.detach(|| {
            on_threads(|| {
                with_puzzle!(&self.inner, p => positions
                    .par_iter()
                    .map(|text| p.parse(text).map(|s| p.rank(&s)))
                    .collect::<Result<Vec<u64>, _>>())
            })
        });
        Ok(PyArray1::from_vec(py, ranks.map_err(bad_position)?))
    }

    /// The positions of many indices (a numpy array or a list), one-line forms.
    fn unrank_many(&self, py: Python<'_>, indices: Vec<u64>) -> PyResult<Vec<String>> {
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.inner.index_count()) {
            self.check_index(bad)?;
        }
        Ok(py.detach(|| {
            on_threads(|| {
                with_puzzle!(&self.inner, p => indices
                    .par_iter()
                    .map(|&i| p.format_line(&p.unrank(i)))
                    .collect())
            })
        }))
    }

    fn __repr__(&self) -> String {
        format!("antipode.puzzle({:?})", self.inner.name())
    }
}

impl Puzzle {
    fn check_index(&self, index: u64) -> PyResult<()> {
        if index < self.inner.index_count() {
            Ok(())
        } else {
            Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "index {index} is not below {}",
                self.inner.index_count()
            )))
        }
    }
}

/// The puzzle `name` names (`antipode list`), or a description file's path.
#[pyfunction]
fn puzzle(name: &str) -> PyResult<Puzzle> {
    Ok(Puzzle {
        inner: puzzles::lookup(name).map_err(mismatch)?,
    })
}

/// A depth table, mapped (opening it reads the header only).
#[pyclass(frozen, module = "antipode")]
struct Table {
    puzzle: AnyPuzzle,
    table: DepthTable,
    /// The file mapped (a single file; `None` for a folder of shards) and the size
    /// its header gives it: a call first checks the file still has it, since a
    /// mapped page cut off by another process kills the process (SIGBUS).
    file: Option<(std::fs::File, u64)>,
    /// Set by `close()`: every later call raises.
    closed: std::sync::atomic::AtomicBool,
}

#[pymethods]
impl Table {
    /// Opens the table at `path`; its puzzle comes from its header, and must be
    /// `puzzle` (a name or description path) when that is given. Every answer is read
    /// from checked bytes: a table of format 3 has a checksum per 1 MiB block, checked
    /// the first time an answer reads the block (a damaged block raises CorruptFile);
    /// an older table is checked whole at open, unless `verify=False`.
    #[staticmethod]
    #[pyo3(signature = (path, puzzle = None, verify = true))]
    fn open(
        py: Python<'_>,
        path: std::path::PathBuf,
        puzzle: Option<&str>,
        verify: bool,
    ) -> PyResult<Table> {
        if !path.exists() {
            return Err(open_error(
                py,
                &path,
                format!("{}: no such file", path.display()),
            ));
        }
        py.detach(|| {
            let table = on_threads(|| {
                if verify {
                    DepthTable::open(&path)
                } else {
                    DepthTable::open_unverified(&path)
                }
            })
            .map_err(|e| CorruptFile::new_err(e.to_string()))?;
            let file = match path.is_file() {
                true => {
                    let size =
                        ::antipode::table::HEADER_BYTES as u64 + table.header().payload_bytes;
                    let file = std::fs::File::open(&path)
                        .map_err(|e| CorruptFile::new_err(format!("{}: {e}", path.display())))?;
                    Some((file, size))
                }
                false => None,
            };
            let header = table.header();
            let puzzle = match puzzle {
                Some(name) => puzzles::lookup(name),
                None => antipode::jobs::puzzle_from_identity(&header.puzzle, &header.goal),
            }
            .map_err(mismatch)?;
            with_puzzle!(&puzzle, p => table.check_puzzle(p)).map_err(mismatch)?;
            Ok(Table {
                puzzle,
                table,
                file,
                closed: Default::default(),
            })
        })
    }

    /// The table's puzzle.
    #[getter]
    fn puzzle(&self) -> Puzzle {
        Puzzle {
            inner: self.puzzle.clone(),
        }
    }

    /// The exact distance of a position (text) from the goal.
    fn distance(&self, position: &str) -> PyResult<u32> {
        self.check_file()?;
        self.distance_of_text(position)
    }

    /// The distances of many positions: indices (any integer array-like: a numpy
    /// array of any integer type, a list, a range) or position texts; a numpy array
    /// of uint32 (on all cores, the GIL released). An unreached state gets
    /// 2**32 - 1. On an 8-bit table each is one read (a million in about 0.06 s); on
    /// a 2-bit table each is found by descent to the goal (a million in seconds).
    fn distances<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        self.check_file()?;
        let array = py.import("numpy")?.call_method1("asarray", (positions,))?;
        let ndim: usize = array.getattr("ndim")?.extract()?;
        let size: usize = array.getattr("size")?.extract()?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        if ndim != 1 && size > 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "positions are one list or 1-D array, not {ndim}-D"
            )));
        }
        if size == 0 {
            return Ok(PyArray1::from_vec(py, Vec::new()));
        }
        if kind == "i" || kind == "u" {
            if kind == "i" && array.call_method0("min")?.extract::<i64>()? < 0 {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "indices are not negative",
                ));
            }
            // A copy of the caller's array: another thread may change that one
            // while this one runs without the GIL.
            let copy = array.call_method1("astype", ("uint64",))?;
            let copy = copy.extract::<PyReadonlyArray1<'py, u64>>()?;
            let indices: Vec<u64> = copy.as_slice()?.to_vec();
            let count = self.table.header().indices;
            if let Some(bad) = indices.iter().find(|&&i| i >= count) {
                return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "index {bad} is not below {count}"
                )));
            }
            let out = in_interruptible_chunks(py, &indices, |chunk| {
                chunk
                    .par_iter()
                    .map(|&i| self.distance_of_index(i))
                    .collect()
            })?;
            return Ok(PyArray1::from_vec(py, out));
        }
        let texts: Vec<String> = positions.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "positions are integer indices or position texts, not an array of dtype kind `{kind}`"
            ))
        })?;
        let out = in_interruptible_chunks(py, &texts, |chunk| {
            chunk.par_iter().map(|t| self.distance_of_text(t)).collect()
        })?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// Positions per distance, as a numpy array.
    #[getter]
    fn histogram<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.table.header().histogram.clone())
    }

    /// The header's fields.
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = self.table.header();
        let d = PyDict::new(py);
        d.set_item("version", h.version)?;
        d.set_item("puzzle", &h.puzzle)?;
        d.set_item("goal", &h.goal)?;
        d.set_item("definition_sha256", &h.definition_sha256)?;
        d.set_item("indices", h.indices)?;
        d.set_item("bits", h.encoding.bits())?;
        d.set_item("complete", h.complete)?;
        d.set_item("histogram", h.histogram.clone())?;
        d.set_item("payload_bytes", h.payload_bytes)?;
        d.set_item("payload_crc32", h.payload_crc32)?;
        Ok(d)
    }

    /// 8-bit tables: the entries themselves, a read-only numpy view of the mapped
    /// file (no copy): `distance + 1`, 0 for unreached. The first call checks every
    /// block of a table of format 3 (reading it all).
    #[getter]
    fn entries<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let this = slf.get();
        this.check_file()?;
        this.table
            .check_all()
            .map_err(|e| CorruptFile::new_err(e.to_string()))?;
        let Depths::Byte(bytes) = this.table.depths() else {
            return Err(Error::new_err(
                "entries are for 8-bit tables; a 2-bit table's distances come from distances()",
            ));
        };
        let view = ArrayView1::from(bytes.as_bytes());
        // SAFETY: the view borrows the table's mapping, which lives as long as the
        // Table object the array keeps as its base; nothing writes the mapping.
        let array = unsafe { PyArray1::borrow_from_array(&view, slf.clone().into_any()) };
        let flags = PyDict::new(slf.py());
        flags.set_item("write", false)?;
        array.call_method("setflags", (), Some(&flags))?;
        Ok(array)
    }

    /// Ends the table's use: every later call raises ValueError. The mapping is
    /// released with the object (a numpy view of `entries` keeps it alive).
    fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        _kind: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "antipode.Table.open({}, puzzle={})  # {}-bit, {} levels",
            quoted(&self.table.path().display().to_string()),
            quoted(&self.puzzle.name()),
            self.table.header().encoding.bits(),
            self.table.header().histogram.len()
        )
    }

    /// An optimal solution by descent: the moves, in the puzzle's notation.
    fn solve(&self, py: Python<'_>, position: &str) -> PyResult<Vec<String>> {
        self.check_file()?;
        py.detach(|| {
            with_puzzle!(&self.puzzle, p => {
                let state = p.parse(position).map_err(bad_position)?;
                let steps = self.table.for_checked_puzzle(p).solve(&state).map_err(answer_error)?;
                Ok(steps.iter().map(|s| s.moved.to_string()).collect())
            })
        })
    }
}

impl Table {
    /// Refuses a call on a file another process has cut short since it was opened
    /// (reading its lost pages would kill the interpreter). A cut during the call
    /// itself is not caught: tables are replaced by renaming, never cut, by antipode.
    fn check_file(&self) -> PyResult<()> {
        if self.closed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{}: the table is closed",
                self.table.path().display()
            )));
        }
        let Some((file, size)) = &self.file else {
            return Ok(());
        };
        let found = file.metadata().map(|m| m.len()).unwrap_or(0);
        if found < *size {
            return Err(CorruptFile::new_err(format!(
                "{}: truncated since it was opened: {found} bytes, the header says {size}",
                self.table.path().display()
            )));
        }
        Ok(())
    }

    /// The distance of the state with index `index`, 2**32 - 1 if unreached; a
    /// damaged or inconsistent table raises.
    fn distance_of_index(&self, index: u64) -> PyResult<u32> {
        let answer = with_puzzle!(&self.puzzle, p => {
            self.table.for_checked_puzzle(p).distance_of_index(index)
        });
        match answer {
            Ok(distance) => Ok(distance),
            Err(TableError::Descent(DescentError::Unreached)) => Ok(u32::MAX),
            Err(e) => Err(answer_error(e)),
        }
    }

    fn distance_of_text(&self, position: &str) -> PyResult<u32> {
        with_puzzle!(&self.puzzle, p => {
            let state = p.parse(position).map_err(bad_position)?;
            self.table
                .for_checked_puzzle(p)
                .distance(&state)
                .map_err(answer_error)
        })
    }
}

/// The pattern databases of a partition of a sliding board's tiles (`7-8` for the
/// 15-puzzle), built into `dir` first if missing: an admissible estimate of a
/// position's distance, the one `antipode solve --pdb` searches with.
#[pyclass(frozen, module = "antipode")]
struct Partition {
    board: ::antipode::puzzles::sliding::BoardShape,
    partition: ::antipode::pdb::Partition,
    /// How it was opened, for `repr`.
    opened_as: String,
}

#[pymethods]
impl Partition {
    /// Opens (or builds) the databases of `board` split into patterns of `sizes`.
    #[staticmethod]
    #[pyo3(
        signature = (board, sizes, goal = None, dir = std::path::PathBuf::from("tables")),
        text_signature = "(board, sizes, goal=None, dir='tables')"
    )]
    fn open(
        py: Python<'_>,
        board: &str,
        sizes: &str,
        goal: Option<&str>,
        dir: std::path::PathBuf,
    ) -> PyResult<Partition> {
        let shape = puzzles::sliding_board(board, goal).map_err(mismatch)?;
        let partition = py
            .detach(|| {
                on_threads(|| {
                    ::antipode::jobs::Databases::partition(&shape, sizes)
                        .map(|job| job.dir(&dir).open())
                })
            })
            .map_err(|e| Error::new_err(e.to_string()))?
            .map_err(|e| CorruptFile::new_err(e.to_string()))?;
        Ok(Partition {
            board: shape,
            partition,
            opened_as: format!(
                "antipode.Partition.open({}, {}, goal={}, dir={})",
                quoted(board),
                quoted(sizes),
                goal.map_or("None".to_string(), quoted),
                quoted(&dir.display().to_string())
            ),
        })
    }

    fn __repr__(&self) -> String {
        self.opened_as.clone()
    }

    /// The board's cells, row by row: the goal's tile in each (0 the blank).
    #[getter]
    fn goal(&self) -> Vec<u8> {
        self.board.goal().to_vec()
    }

    /// The cells of a position given as text (`0 1 2 3/4 5 6 7/...`).
    fn cells(&self, position: &str) -> PyResult<Vec<u8>> {
        self.board.parse_position(position).map_err(bad_position)
    }

    /// A lower bound on the distance of a position: its text, or its cells (a list
    /// or bytes, row by row, 0 the blank).
    fn estimate(&self, position: &Bound<'_, PyAny>) -> PyResult<u32> {
        let cells: Vec<u8> = match position.extract::<String>() {
            Ok(text) => self.cells(&text)?,
            Err(_) => position.extract()?,
        };
        self.board.check_cells(&cells).map_err(bad_position)?;
        Ok(self.partition.estimate(&cells))
    }
}

/// Forwards each finished level of a search to the thread that called `analyze`.
struct Forward(std::sync::mpsc::Sender<::antipode::engine::LevelStats>);

impl ::antipode::engine::Observer for Forward {
    fn level_finished(&self, stats: &::antipode::engine::LevelStats) {
        let _ = self.0.send(stats.clone());
    }
}

/// One finished level as the dict a progress callback receives.
fn level_dict<'py>(
    py: Python<'py>,
    stats: &::antipode::engine::LevelStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("depth", stats.depth)?;
    d.set_item("new_states", stats.new_states)?;
    d.set_item("cumulative", stats.cumulative)?;
    d.set_item("seconds", stats.elapsed.as_secs_f64())?;
    let direction = match stats.direction {
        Some(::antipode::engine::Direction::TopDown) => Some("top-down"),
        Some(::antipode::engine::Direction::BottomUp) => Some("bottom-up"),
        None => None,
    };
    d.set_item("direction", direction)?;
    Ok(d)
}

/// What an `analyze` call runs, whatever its puzzle.
struct AnalyzeJob<'a> {
    table: Option<&'a std::path::Path>,
    encoding: Encoding,
    threads: Option<usize>,
    observer: &'a dyn ::antipode::engine::Observer,
    stop: &'a ::antipode::StopToken,
}

impl AnalyzeJob<'_> {
    /// The job on `puzzle`, from the goal or from `start` (one call into the library,
    /// which holds the search for every kind of puzzle).
    fn run(
        &self,
        puzzle: &AnyPuzzle,
        start: Option<&str>,
    ) -> Result<::antipode::analysis::Analysis, ::antipode::jobs::AnalyzeJobError> {
        let mut job = ::antipode::Analyze::new(puzzle)
            .threads_or_all(self.threads)
            .encoding(self.encoding)
            .observer(self.observer)
            .stop(self.stop);
        if let Some(path) = self.table {
            job = job.table(path);
        }
        if let Some(start) = start {
            job = job.from(start);
        }
        on_threads(|| job.run())
    }
}

/// Analyzes the puzzle `name` on a worker thread (the GIL released): a dict with
/// `gods_number`, `antipodes` (their one-line forms, the first ones),
/// `antipode_count`, `reachable`, `indices` and `histogram` (numpy; per class of
/// positions for a puzzle opened with `--symmetry`, whose `classes` entry then gives
/// `symmetries`, `positions`, `positions_by_depth`, `antipode_positions`,
/// `burnside_classes` and `antipode_class_sizes`). With `table`,
/// the depths go to that file (`bits` 8 or 2), resuming an unfinished one.
/// `progress`, if given, is called with a dict per finished level (`depth`,
/// `new_states`, `cumulative`, `seconds`, `direction`). Ctrl-C (or an exception
/// raised by `progress`) stops the search within a level, in memory as into a table:
/// the table keeps its complete levels and the same call resumes it; `analyze` then
/// raises KeyboardInterrupt (or that exception).
///
/// Keyword arguments open the puzzle as the command line's options do: `symmetry`
/// (a twisty puzzle's symmetry classes), `start` (search from this position instead of
/// the goal, `"start"` the puzzle's own start; with `symmetry`, under the symmetries that fix it), `goal` (another goal)
/// and `metric` (`step`, `line`, `path`, `half` or `quarter`).
#[pyfunction]
#[pyo3(signature = (
    name, table = None, bits = 8, threads = None, progress = None, *,
    symmetry = false, start = None, goal = None, metric = None
))]
// Each keyword argument of the Python call is a parameter of its own (pyo3 maps them one
// to one, and the stubs name each).
#[allow(clippy::too_many_arguments)]
fn analyze<'py>(
    py: Python<'py>,
    name: &str,
    table: Option<std::path::PathBuf>,
    bits: u32,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
    symmetry: bool,
    start: Option<String>,
    goal: Option<String>,
    metric: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let encoding = match bits {
        8 => Encoding::Byte,
        2 => Encoding::Mod3,
        _ => return Err(Error::new_err(format!("bits is 8 or 2, not {bits}"))),
    };
    let options = puzzles::Options {
        goal,
        metric,
        symmetry,
        ..puzzles::Options::default()
    };
    let puzzle = match puzzles::open_options(name, &options) {
        Ok(puzzles::Opened::Ranked(puzzle)) => puzzle,
        Ok(puzzles::Opened::Peg(board)) => {
            return Err(mismatch(puzzles::CatalogError::NotRanked(
                board.name().to_string(),
            )));
        }
        Err(e @ puzzles::CatalogError::Unknown(_)) => return Err(mismatch(e)),
        Err(e) => return Err(Error::new_err(e.to_string())),
    };
    let puzzle = match &start {
        Some(root) => puzzle
            .fixing(root)
            .map_err(|e| Error::new_err(e.to_string()))?,
        None => puzzle,
    };
    if let Some(root) = start.as_deref().filter(|&root| root != "start") {
        with_puzzle!(&puzzle, p => p.parse(root).map(drop)).map_err(bad_position)?;
    }
    let token = ::antipode::StopToken::new();
    let (sender, mut receiver) = std::sync::mpsc::channel();
    let mut failure: Option<PyErr> = None;
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let forward = Forward(sender);
            let job = AnalyzeJob {
                table: table.as_deref(),
                encoding,
                threads,
                observer: &forward,
                stop: &token,
            };
            job.run(&puzzle, start.as_deref())
        });
        loop {
            // Wait for a level without the GIL, then take it to report the level
            // and to let Python's signal handlers run (Ctrl-C).
            let (back, event) = py.detach(move || {
                let event = receiver.recv_timeout(std::time::Duration::from_millis(50));
                (receiver, event)
            });
            receiver = back;
            let stats = match event {
                Ok(stats) => Some(stats),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if failure.is_some() {
                continue;
            }
            let reported = match (&progress, stats) {
                (Some(callback), Some(stats)) => {
                    level_dict(py, &stats).and_then(|d| callback.call1((d,)).map(drop))
                }
                _ => Ok(()),
            };
            if let Err(error) = reported.and_then(|()| py.check_signals()) {
                failure = Some(error);
                token.stop();
            }
        }
        py.detach(|| worker.join())
    });
    let analysis = match (outcome, failure) {
        (Err(_), _) => return Err(Error::new_err("internal error: the analysis panicked")),
        (Ok(Err(e)), Some(error))
            if error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) =>
        {
            let message = match e {
                ::antipode::jobs::AnalyzeJobError::Interrupted(stopped) => {
                    match (&table, &stopped.checkpoint) {
                        (Some(_), Some(path)) => format!(
                            "interrupted: {} holds {} complete level(s); call analyze with the \
                             same table again to resume",
                            path.display(),
                            stopped.levels.len()
                        ),
                        _ => stopped.to_string(),
                    }
                }
                other => other.to_string(),
            };
            return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(message));
        }
        (Ok(_), Some(error)) => return Err(error),
        (Ok(result), None) => result.map_err(|e| Error::new_err(e.to_string()))?,
    };
    let d = PyDict::new(py);
    d.set_item("puzzle", &analysis.puzzle)?;
    d.set_item("indices", analysis.indices)?;
    d.set_item("reachable", analysis.reachable)?;
    d.set_item("gods_number", analysis.gods_number)?;
    d.set_item("antipode_count", analysis.antipode_count)?;
    d.set_item("antipodes", analysis.antipodes.clone())?;
    d.set_item(
        "histogram",
        PyArray1::from_vec(py, analysis.histogram.clone()),
    )?;
    if let Some(counts) = &analysis.classes {
        let classes = PyDict::new(py);
        classes.set_item("symmetries", counts.symmetries)?;
        classes.set_item("puzzle_symmetries", counts.puzzle_symmetries)?;
        classes.set_item("positions", counts.positions)?;
        classes.set_item("positions_by_depth", counts.positions_by_depth.clone())?;
        classes.set_item("antipode_positions", counts.antipode_positions)?;
        classes.set_item("burnside_classes", counts.burnside_classes)?;
        classes.set_item("antipode_class_sizes", counts.antipode_class_sizes.clone())?;
        d.set_item("classes", classes)?;
    }
    Ok(d)
}

/// Exhaustive state-space analysis of puzzles: ranking, depth tables, analyses.
#[pymodule]
#[pyo3(name = "antipode")]
fn antipode_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    LOADED_IN.get_or_init(std::process::id);
    m.add("FileNotFound", file_not_found_type(m.py())?.bind(m.py()))?;
    m.add_function(wrap_pyfunction!(puzzle, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_class::<Puzzle>()?;
    m.add_class::<Table>()?;
    m.add_class::<Partition>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("BadPosition", m.py().get_type::<BadPosition>())?;
    m.add("TableMismatch", m.py().get_type::<TableMismatch>())?;
    m.add("CorruptFile", m.py().get_type::<CorruptFile>())?;
    Ok(())
}
