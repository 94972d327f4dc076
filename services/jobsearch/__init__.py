"""jobsearch: the job-search pipeline on jetjobs (fetch, dedupe, draft, export).

The stages arrive as their own issues; each will be a jetjobs handler in its own service process
whose output is the next stage's job (see DESIGN.md §1 and §5).
"""
