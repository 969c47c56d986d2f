"""Tiny files of RULER's inputs in each exact format, for the tests of this folder (their fixtures: conftest.py)."""

from __future__ import annotations

TINY_SQUAD_V2 = {"version": "v2.0", "data": [
    {"title": "B", "paragraphs": [
        {"context": "Zeta paragraph.", "qas": [
            {"question": "q1?", "id": "1", "answers": [{"text": "Zeta", "answer_start": 0},
                                                        {"text": "Zeta p", "answer_start": 0}], "is_impossible": False},
            {"question": "q2?", "id": "2", "answers": [], "plausible_answers": [{"text": "x", "answer_start": 0}],
             "is_impossible": True}]},
        {"context": "Alpha paragraph.", "qas": [
            {"question": "q3?", "id": "3", "answers": [{"text": "Alpha", "answer_start": 0}], "is_impossible": False}]},
        {"context": "Zeta paragraph.", "qas": []}]},
    {"title": "A", "paragraphs": [
        {"context": "Mid paragraph \u00e9.", "qas": [
            {"question": "q4?", "id": "4", "answers": [{"text": "Mid", "answer_start": 0}], "is_impossible": False}]}]},
]}

TINY_HOTPOT = [
    {"_id": "a1", "question": "Which came first?", "answer": "yes", "type": "comparison", "level": "hard",
     "supporting_facts": [["T2", 0]], "context": [["T2", ["S one.", " S two."]], ["T1", ["Only."]]]},
    {"_id": "a2", "question": "Who?", "answer": "Ann", "type": "bridge", "level": "easy",
     "supporting_facts": [["T1", 0]], "context": [["T1", ["Only."]], ["T3", []], ["T2", ["S one.", " S two."]]]},
]

TINY_ENGLISH_WORDS = {"zebra": "zebra", "apple": "apple", "dup": "mango", "kiwi": "kiwi", "dup2": "mango"}
