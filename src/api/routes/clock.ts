// The wall clock of the routes whose answers depend on "now" (24-hour windows, today's chart
// point): one place, so a test can stand it on another day.
export const clock = { now: (): number => Date.now() };
