"""The search as pictures: `/insights` on the review page, and `jobsearch report --html`.

Charts drawn on the server as SVG (no script, no chart library), each with the same figures as a
table and a CSV, from the state of record in SQLite (read only; dedupe's tables are not read):

- `queries`: found per day by board, new against seen again, the funnel, answers by source and board;
- `pay`: the fit distribution, and annual pay ranges by place;
- `svg`: the drawings (patterns and direct labels: readable without colour);
- `charts`: each chart's figures, drawing, table and words; `csvfile`: its CSV;
- `render`: the self-contained report; `routes`: the page's routes; `report_command`: the command.
"""

from jobsearch.insights.charts import CHART_KEYS, Chart, all_charts
from jobsearch.insights.render import report_html

__all__ = ["CHART_KEYS", "Chart", "all_charts", "report_html"]
