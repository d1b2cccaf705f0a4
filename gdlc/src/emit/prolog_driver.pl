% The gdlc Prolog driver: loads a game program emitted by gdlc::emit::prolog and runs
% perft or timed random playouts with SWI-Prolog. Embedded in gdlc (DRIVER) and
% written next to the program.
%
% Usage:
%   swipl -f none driver.pl -- game.pl perft DEPTH
%   swipl -f none driver.pl -- game.pl playouts SECONDS SEED MAXSTEPS
%
% Output on stdout, TAB separated:
%   perft   D  COUNT                 one line for each depth D in 1..DEPTH
%   playouts N states M seconds S    complete playouts, state changes, wall time
% Any problem (a load error or warning, a role without legal moves, a playout longer
% than MAXSTEPS) is reported on stderr with exit code 1.
%
% The program's interface: g_role/1, g_init/1, g_legal/2, g_next/1, g_terminal/0,
% g_goal/2, the dynamic inputs g_true/1 and g_does/2, and gdlc_materialise/2 (static
% relations to compute once at load time).

:- initialization(main, main).

:- dynamic gdlc_load_problem/0.
:- dynamic gdlc_roles/1.

% Count errors and warnings printed while the game loads (they are still printed).
:- multifile user:message_hook/3.
user:message_hook(_, Kind, _) :-
    ( Kind == error ; Kind == warning ),
    \+ gdlc_load_problem,
    assertz(gdlc_load_problem),
    fail.

main :-
    % One core: no separate garbage-collection thread.
    set_prolog_flag(gc_thread, false),
    current_prolog_flag(argv, Argv),
    catch(run(Argv), Error, (report(Error), halt(1))).

report(gdlc(Format, Args)) :-
    !,
    format(user_error, "error: ", []),
    format(user_error, Format, Args),
    nl(user_error).
report(Error) :-
    print_message(error, Error).

run([Game|Task]) :-
    load_game(Game),
    task(Task).
run([]) :-
    throw(gdlc("usage: driver.pl -- GAME.pl (perft DEPTH | playouts SECONDS SEED MAXSTEPS)", [])).

task([perft, DepthText]) :-
    !,
    atom_number(DepthText, Depth),
    initial_state(Initial),
    forall(between(1, Depth, D),
           ( perft(Initial, D, Count),
             format("perft\t~d\t~d~n", [D, Count]),
             flush_output )).
task([playouts, SecondsText, SeedText, MaxText]) :-
    !,
    atom_number(SecondsText, Seconds),
    atom_number(SeedText, Seed),
    atom_number(MaxText, MaxSteps),
    playouts(Seconds, Seed, MaxSteps).
task(Task) :-
    throw(gdlc("unknown task ~q", [Task])).

% Loading: the program, then its static relations, once.

load_game(File) :-
    ( gdlc_load_problem -> throw(gdlc("the driver did not load cleanly", [])) ; true ),
    ( exists_file(File) -> true ; throw(gdlc("no such game program: ~w", [File])) ),
    load_files(File, [silent(true)]),
    ( gdlc_load_problem -> throw(gdlc("the game program ~w did not load cleanly", [File])) ; true ),
    materialise,
    findall(R, g_role(R), Roles0),
    list_to_set(Roles0, Roles),
    ( Roles == [] -> throw(gdlc("the game has no roles", [])) ; true ),
    assertz(gdlc_roles(Roles)).

% Each static relation with rules is computed once, dependencies first. With at most
% 1000 answers they are asserted as facts, which JIT indexing serves well. A larger
% relation keeps its rules (through one bridging clause): SWI-Prolog indexes a table on
% one or two arguments, and scanning a bucket of a large many-column table (such as
% 65,280 pairs of different cells) costs more than deriving the tuple again. So does a
% relation whose first 1001 answers take more than 10^7 inferences (lists of every
% length, only ever called with bound arguments). The tables used to compute recursive
% ones are dropped (and rebuilt on demand, once per call variant).
materialise_limit(1000).
materialise_budget(10000000).

materialise :-
    materialise_limit(Limit),
    Enough is Limit + 1,
    forall(gdlc_materialise(Fact, Goal),
           (   materialise_budget(Budget),
               call_with_inference_limit(once(findnsols(Enough, Fact, Goal, Answers0)),
                                         Budget, Result),
               Result \== inference_limit_exceeded,
               length(Answers0, N),
               N =< Limit
           ->  list_to_set(Answers0, Answers),
               forall(member(Answer, Answers), assertz(Answer))
           ;   assertz((Fact :- Goal))
           )),
    abolish_all_tables.

% States are sorted lists of fluents; the current one is the g_true/1 facts.

initial_state(State) :-
    findall(F, g_init(F), Fluents),
    sort(Fluents, State).

set_state(State) :-
    retractall(g_true(_)),
    assert_fluents(State).

% From state Old (the current one) to New: only the fluents that change are retracted
% or asserted.
update_state(Old, New) :-
    ord_subtract(Old, New, Gone),
    ord_subtract(New, Old, Added),
    retract_fluents(Gone),
    assert_fluents(Added).

assert_fluents([]).
assert_fluents([F|Fs]) :-
    assertz(g_true(F)),
    assert_fluents(Fs).

retract_fluents([]).
retract_fluents([F|Fs]) :-
    retractall(g_true(F)),
    retract_fluents(Fs).

% Legal moves of each role in the current state, deduplicated and sorted.
legal_lists([], []).
legal_lists([Role|Roles], [Moves|Rest]) :-
    findall(M, g_legal(Role, M), Moves0),
    sort(Moves0, Moves),
    legal_lists(Roles, Rest).

% The next state after a joint move (one move per role, in role order) in the current
% state.
next_state(Roles, Joint, Next) :-
    assert_moves(Roles, Joint),
    findall(F, g_next(F), Fluents),
    retractall(g_does(_, _)),
    sort(Fluents, Next).

assert_moves([], []).
assert_moves([R|Rs], [M|Ms]) :-
    assertz(g_does(R, M)),
    assert_moves(Rs, Ms).

% Perft: joint-move sequences of length Depth; a terminal state is one leaf, a
% non-terminal state where a role has no move is none.

perft(_, 0, 1) :- !.
perft(State, Depth, Count) :-
    set_state(State),
    (   g_terminal
    ->  Count = 1
    ;   gdlc_roles(Roles),
        legal_lists(Roles, Lists),
        (   memberchk([], Lists)
        ->  Count = 0
        ;   Depth =:= 1
        ->  foldl(times_length, Lists, 1, Count)
        ;   Depth1 is Depth - 1,
            findall(Next, (joint(Lists, Joint), next_state(Roles, Joint, Next)), Nexts),
            foldl(add_perft(Depth1), Nexts, 0, Count)
        )
    ).

times_length(List, Acc0, Acc) :-
    length(List, N),
    Acc is Acc0 * N.

add_perft(Depth, State, Acc0, Acc) :-
    perft(State, Depth, N),
    Acc is Acc0 + N.

joint([], []).
joint([Moves|Lists], [M|Ms]) :-
    member(M, Moves),
    joint(Lists, Ms).

% Random playouts from the initial state for Seconds of wall time (at least one).

playouts(Seconds, Seed, MaxSteps) :-
    set_random(seed(Seed)),
    initial_state(Initial),
    gdlc_roles(Roles),
    get_time(Start),
    Deadline is Start + Seconds,
    playout_loop(Initial, Roles, MaxSteps, Start, Deadline, 0, 0).

playout_loop(Initial, Roles, MaxSteps, Start, Deadline, Playouts0, States0) :-
    set_state(Initial),
    play(Roles, Initial, MaxSteps, 0, Steps),
    Playouts is Playouts0 + 1,
    States is States0 + Steps,
    get_time(Now),
    (   Now >= Deadline
    ->  Elapsed is Now - Start,
        format("playouts\t~d\tstates\t~d\tseconds\t~6f~n", [Playouts, States, Elapsed])
    ;   playout_loop(Initial, Roles, MaxSteps, Start, Deadline, Playouts, States)
    ).

% Plays random joint moves from State, the current state, to a terminal state, where
% every role's goal is queried once, as a player would.
play(Roles, State, MaxSteps, Steps0, Steps) :-
    (   g_terminal
    ->  forall(member(R, Roles), ignore(once(g_goal(R, _)))),
        Steps = Steps0
    ;   Steps0 >= MaxSteps
    ->  throw(gdlc("the game did not end within ~d steps", [MaxSteps]))
    ;   random_joint(Roles, Steps0, Joint),
        next_state(Roles, Joint, Next),
        update_state(State, Next),
        Steps1 is Steps0 + 1,
        play(Roles, Next, MaxSteps, Steps1, Steps)
    ).

random_joint([], _, []).
random_joint([Role|Roles], Step, [Move|Moves]) :-
    findall(M, g_legal(Role, M), Moves0),
    sort(Moves0, Legal),
    (   random_member(Move, Legal)
    ->  true
    ;   throw(gdlc("role ~q has no legal move in the non-terminal state after ~d steps",
                   [Role, Step]))
    ),
    random_joint(Roles, Step, Moves).
