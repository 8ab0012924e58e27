"""Plain, immutable, array-backed data: assessments, runs and topics."""

from inexeval.model.assessments import Assessments, TopicAssessments
from inexeval.model.run import Run, TopicRun
from inexeval.model.topic import Topic

__all__ = ["Assessments", "Run", "Topic", "TopicAssessments", "TopicRun"]
