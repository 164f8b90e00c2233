"""The league's tables: Elo ratings, standings, charts, places and the queries behind them."""
