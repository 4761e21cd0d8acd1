"""The Slack edge: ``create_app`` (bot.slack.app), listeners by kind, the Web API gateway.

The ids and the button/modal state models are pure data and live with the
renderers (:mod:`bot.render.ids`, :mod:`bot.render.state`).
"""
